/** The transform's word lists and token tests: dates, units, prepositions, place heads (rule tables only, no passes). */

export const MONTHS = new Set(['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december']);
export const MONTH_ABBREVIATIONS = new Set(['jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec']);
export const WEEKDAYS = new Set(['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']);
export const DATE_WORDS = new Set(['today', 'yesterday', 'tomorrow', 'tonight']);
export const RELATIVE = new Set(['last', 'next', 'this', 'past', 'previous', 'coming']);
export const PERIODS = new Set([
  'second',
  'minute',
  'hour',
  'day',
  'week',
  'weekend',
  'month',
  'year',
  'decade',
  'century',
  'night',
  'morning',
  'evening',
  'afternoon',
  'season',
  'spring',
  'summer',
  'autumn',
  'fall',
  'winter',
]);
export const DURATION_UNITS = new Set([
  'second',
  'seconds',
  'sec',
  'secs',
  'minute',
  'minutes',
  'min',
  'mins',
  'hour',
  'hours',
  'hr',
  'hrs',
  'day',
  'days',
  'week',
  'weeks',
  'month',
  'months',
  'year',
  'years',
  'decade',
  'decades',
]);
export const TIME_WORDS = new Set(['am', 'pm', 'a.m.', 'p.m.', "o'clock"]);
export const UNITS = new Set(
  `kg kgs kilogram kilograms g gram grams mg lb lbs pound pounds oz ounce ounces t ton tons tonne tonnes
  mm cm m km meter meters metre metres kilometer kilometers inch inches in ft foot feet yd yard yards mile miles
  ml l liter liters litre litres gallon gallons cup cups tbsp tsp mph kph kmh km/h w kw hp v mah gb mb tb
  px mp k % percent degree degrees °c °f x pcs pc piece pieces pack packs set sets pair pairs`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);
export const DATE_PREPOSITIONS = new Set([
  'on',
  'in',
  'at',
  'during',
  'since',
  'from',
  'until',
  'till',
  'by',
  'of',
  'for',
  'before',
  'after',
  'circa',
  'around',
]);
export const LOCATIVE_PREPOSITIONS = new Set([
  'in',
  'at',
  'near',
  'from',
  'outside',
  'inside',
  'around',
  'across',
  'throughout',
  'on',
  'to',
  'into',
  'within',
  'through',
  'over',
]);
export const DETERMINERS = new Set(['a', 'an', 'the', 'this', 'that', 'these', 'those', 'some', 'two', 'my', 'his', 'her', 'their', 'our', 'your']);
/** Place designators: a capitalised run ending in one of these is a place ("Main Street"). */
export const PLACE_HEADS = new Set(
  `street st avenue ave road rd boulevard blvd lane square plaza bridge tower city town village county
  state province district island islands lake river bay beach coast harbour harbor falls mountain
  mountains hill hills valley canyon desert forest park gardens airport station stadium arena center
  centre hall museum gallery palace castle cathedral church chapel temple mosque abbey university college
  hotel market mall zoo`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);
/** Hypernym heads too abstract to stand in for a noun (rule 2). */
export const ABSTRACT = new Set(
  `entity physical object whole thing artifact artefact instrumentality matter substance solid organism
  being causal agent chordate vertebrate placental part commodity article ware creation product
  communication unit group nutriment durables goods abstraction structure covering device implement
  container equipment`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);
/** Concrete lexicographer files: noun.animal 5, noun.artifact 6, noun.food 13, noun.plant 20. */
export const CONCRETE_LEX_FILES = new Set([5, 6, 13, 20]);

export function isYear(text: string): boolean {
  return /^(1[5-9]|20)\d\d$/.test(text) || /^'\d\d$/.test(text) || /^(1[5-9]|20)\d0s$/.test(text);
}

export function isNumber(text: string): boolean {
  return /^\d+([.,:]\d+)*(st|nd|rd|th)?$/.test(text) || /^\d+(\.\d+)?(k|m|kg|g|cm|mm|km|ml|l|gb|mb|px|mp|x|%)$/i.test(text);
}

export const NUMBER_WORDS = new Set([
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'seven',
  'eight',
  'nine',
  'ten',
  'eleven',
  'twelve',
  'twenty',
  'thirty',
  'hundred',
  'dozen',
]);

/** Mass nouns keep their form in the plural ("garments" → "clothing", not "clothings"). */
export const MASS_NOUNS = new Set([
  'clothing',
  'furniture',
  'equipment',
  'food',
  'jewelry',
  'footwear',
  'headgear',
  'luggage',
  'baggage',
  'tableware',
  'cutlery',
  'hardware',
  'software',
  'produce',
  'seafood',
  'poultry',
  'livestock',
  'cattle',
  'foliage',
  'apparel',
  'gear',
  'bread',
]);

/** Function words that cannot end a caption once what followed them was removed. */
export const DANGLING = new Set(['and', 'or', 'with', 'in', 'on', 'at', 'of', 'from', 'by', 'for', 'to', 'the', 'a', 'an', 'near', 'during']);
