/**
 * Word lists the world's text generators draw from. Written for cckit; names are invented
 * combinations of common given names and surnames, not real people.
 */

export const GIVEN_NAMES = [
  'Anna',
  'Ben',
  'Carla',
  'David',
  'Elena',
  'Felix',
  'Grace',
  'Hugo',
  'Ines',
  'Jonas',
  'Keiko',
  'Liam',
  'Maya',
  'Noah',
  'Olga',
  'Pablo',
  'Quinn',
  'Rosa',
  'Samuel',
  'Tara',
  'Umar',
  'Vera',
  'Walter',
  'Yara',
  'Zoe',
  'Marcus',
  'Priya',
  'Tomas',
  'Lena',
  'Omar',
];

export const SURNAMES = [
  'Adler',
  'Brooks',
  'Castillo',
  'Dunn',
  'Eriksen',
  'Fontaine',
  'Garcia',
  'Holm',
  'Ibarra',
  'Jansen',
  'Kowalski',
  'Lindqvist',
  'Moreau',
  'Nakamura',
  'Okafor',
  'Petrov',
  'Quint',
  'Rinaldi',
  'Sato',
  'Thornton',
  'Ulrich',
  'Varga',
  'Whitaker',
  'Young',
  'Zimmer',
  'Bauer',
  'Costa',
  'Duarte',
  'Fischer',
  'Novak',
];

/** Occupations a person is named by; CC3M's hypernymisation turns a name into one of these. */
export const PERSON_ROLES = ['actor', 'actress', 'singer', 'footballer', 'politician', 'model', 'chef', 'artist', 'author', 'musician'];

export const PLACES = [
  'Paris',
  'New York',
  'Tokyo',
  'Berlin',
  'Sydney',
  'Lisbon',
  'Toronto',
  'Cape Town',
  'Bangkok',
  'Mexico City',
  'the beach',
  'the park',
  'the market',
  'the kitchen',
  'the garden',
  'the studio',
  'the street',
  'the zoo',
];

export const EVENTS = ['the premiere', 'a concert', 'the festival', 'a charity gala', 'the awards', 'a press conference', 'the match', 'a book signing'];

export const ADJECTIVES = [
  'red',
  'small',
  'large',
  'fresh',
  'old',
  'beautiful',
  'colorful',
  'green',
  'blue',
  'yellow',
  'white',
  'dark',
  'tiny',
  'bright',
  'vintage',
];

export const RELATIONS = ['next to', 'on top of', 'near', 'beside', 'in front of', 'behind', 'with', 'under'];

export const SCENE_PLACES = ['a table', 'the grass', 'a white background', 'a wooden floor', 'the sand', 'a shelf', 'the road', 'a plate'];

export const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Web boilerplate that CC3M's text filter crops ("stock photo") or rejects ("embedded image permalink"). */
export const BOILERPLATE_PREFIXES = ['Stock Photo - ', 'Royalty free image: ', 'Image may contain: ', 'Photo by '];
export const BOILERPLATE_SUFFIXES = [' - click to enlarge', ' - stock photo', ' | royalty free image', ' (click to enlarge picture)'];
export const REJECTED_BOILERPLATE = ['embedded image permalink', 'profile photo', 'image not found', 'no image available'];

export const SEO_WORDS = ['best', 'cheap', 'buy', 'online', 'free', 'hd', 'wallpaper', 'sale', 'top', 'ideas', 'photos', 'images', 'pictures', 'download'];

export const HASHTAG_WORDS = ['travel', 'foodie', 'instagood', 'photooftheday', 'nature', 'love', 'weekend', 'picoftheday'];

/** Short non-English lines; `{}` is replaced by the (English) object name, as mixed-language alt-text does. */
export const NON_ENGLISH_TEMPLATES = [
  'Foto de un {} en la playa',
  'Un {} sur la table de la cuisine',
  'Ein {} im Garten',
  'Il {} sul tavolo',
  'Uma foto de {} no mercado',
  'Een {} in het park',
];

/** What a long product description says its object is good for. */
export const OCCASIONS = ['a birthday', 'the holidays', 'your garden', 'the kitchen', 'a wedding', 'everyday use', 'kids and adults', 'a weekend trip'];

/** Adjectives people use in reference captions (colours, sizes, looks; wider than alt-text's). */
export const REFERENCE_ADJECTIVES = [
  ...ADJECTIVES,
  'round',
  'striped',
  'shiny',
  'wooden',
  'tall',
  'pale',
  'pink',
  'orange',
  'purple',
  'brown',
  'black',
  'gray',
  'spotted',
  'big',
  'little',
  'cute',
  'strange',
  'plain',
];

/** Where people say an object is, in reference captions. */
export const REFERENCE_PLACES = ['in a room', 'outside', 'on display', 'in a field', 'on a counter'];

/** How an object is placed, in reference captions. */
export const POSES = ['sitting', 'lying', 'placed', 'resting', 'standing', 'shown', 'displayed', 'drawn'];

/** Backgrounds people mention. */
export const BACKDROPS = [
  'a plain background',
  'a blue background',
  'a dark background',
  'a textured background',
  'a light backdrop',
  'a grainy background',
  'a colorful backdrop',
  'a striped background',
  'a gray surface',
  'a patterned wall',
  'a green background',
  'a white surface',
];
