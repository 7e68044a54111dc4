/** The detector's word lists: roles and titles, things named after people, designators, brands, function words, cues. */

/** Occupations and titles that introduce a name ("actor Harrison Ford", "Dr. …"). */
export const ROLE_WORDS: ReadonlySet<string> = new Set(
  `actor actress singer songwriter rapper musician guitarist drummer bassist pianist violinist composer
  conductor dancer ballerina model supermodel chef cook artist painter sculptor photographer author
  writer novelist poet journalist reporter presenter host anchor comedian director producer filmmaker
  designer architect footballer player cricketer golfer boxer wrestler swimmer runner sprinter cyclist
  skier skater snowboarder surfer gymnast athlete coach manager captain goalkeeper striker
  defender quarterback pitcher jockey driver racer politician president senator governor mayor minister
  chancellor premier congressman congresswoman candidate ambassador diplomat leader chairman ceo founder
  entrepreneur businessman businesswoman economist scientist professor astronaut doctor nurse surgeon
  lawyer judge officer general colonel sergeant commander admiral king queen prince princess duke
  duchess lord lady sir dame pope cardinal bishop priest rabbi imam saint mr mrs ms miss dr prof
  mister madam star celebrity youtuber influencer blogger personality socialite heiress`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/**
 * Titles in other languages and of nobility, treated like ROLE_WORDS before a name ("Architetto
 * Francesco …", "Comte de Nice") but never given as the name's role.
 */
export const TITLE_WORDS: ReadonlySet<string> = new Set(
  `architetto architetta dottore dottoressa dott ingegnere ing avvocato professore professoressa signor signore
  signora signorina contessa marchese principe principessa monsieur madame mademoiselle mme mlle docteur maitre
  comte comtesse duchesse marquis marquise baronne baroness abbe herr frau fraulein grafin furst furstin
  freiherr doktor senor senora senorita licenciado ingeniero arquitecto profesor profesora senhor senhora condesa
  duquesa countess viscount marquess emperor empress tsar czar tsarina sultan sheikh shah emir pharaoh
  archbishop reverend`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** A role word or a title. */
export function isRole(key: string): boolean {
  return ROLE_WORDS.has(key) || TITLE_WORDS.has(key);
}

/**
 * Heads that make a capitalised run a thing named after someone, not the person: vehicles, weapons,
 * heraldry and emblems, maps ("M-3 Bradley Fighting Vehicle", "Saxony Coat of Arms", "Peters Map").
 */
export const THING_HEADS: ReadonlySet<string> = new Set(
  `vehicle vehicles car cars truck trucks tank tanks jeep tractor bus plane planes airplane aircraft jet fighter
  bomber helicopter ship ships boat boats yacht submarine locomotive rifle rifles gun guns pistol revolver cannon
  missile rocket flag flags banner coat arms crest shield emblem seal badge insignia coin coins medal map maps
  atlas globe logo`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** What shows a person: "Bach Cartoon Bust", "Lincoln Portrait". */
export const DEPICTIONS: ReadonlySet<string> = new Set(
  `bust busts portrait portraits statue statues sculpture caricature cartoon cartoons drawing drawings sketch
  sketches painting paintings picture pictures photo photos photograph image images face head heads silhouette
  profile mask figure figurine doll puppet effigy likeness icon`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Name suffixes ("Martin Luther King Jr", "Henry VIII"). */
export const NAME_SUFFIXES: ReadonlySet<string> = new Set(['jr', 'sr', 'jnr', 'snr', 'ii', 'iii', 'iv', 'vi', 'vii', 'viii']);

/** Heads that make a capitalised phrase a place, building, event or organisation, not a person. */
export const DESIGNATORS: ReadonlySet<string> = new Set(
  `street st avenue ave road rd boulevard blvd lane drive square plaza place way highway bridge tower towers
  city town village county state province district island islands isle lake river sea ocean bay beach
  coast harbour harbor port pier falls mountain mountains mount mt hill hills peak peaks ridge glacier volcano valley canyon
  gorge cove desert forest
  park parks garden gardens zoo airport station terminal stadium arena field center centre hall theatre
  theater cinema museum gallery palace castle cathedral church chapel temple mosque abbey monastery
  university college school academy institute hospital clinic hotel resort restaurant cafe bar pub club
  market mall store shop building house court library fair festival awards award prize cup championship
  championships open games olympics league tour week day night show expo conference summit gala
  company inc ltd llc corp corporation group bank airlines airways records studios studio pictures motors
  magazine news times post journal film movie series season edition collection foundation society
  association council ministry department party army navy republic kingdom empire united wall
  north south east west northern southern eastern western national international royal images photos
  photography media press agency stock prix grand racing motorsport fc`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Common brand names that head capitalised runs ("Toyota Corolla", "Apple Watch"): not persons. */
export const BRANDS: ReadonlySet<string> = new Set(
  `toyota honda nissan mazda subaru hyundai kia bmw audi volkswagen vw porsche mercedes mercedes-benz ferrari
  lamborghini fiat chevrolet chevy cadillac jeep tesla volvo peugeot renault citroen skoda lexus
  apple samsung sony canon nikon panasonic lg huawei xiaomi google microsoft nintendo playstation xbox
  iphone ipad macbook nike adidas puma reebok gucci prada chanel dior versace armani zara ikea lego
  disney marvel pixar starbucks mcdonalds coca-cola pepsi heineken nestle airbus boeing yamaha harley`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Function words (never part of a name; a name run breaks on them). Some foreign ones too. */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set(
  `a an the and or but nor of in on at by for with without to from into onto over under near beside
  behind above below between among during after before about as is are was were be been being it its
  this that these those his her their our my your he she they we you i me him them us who whom whose
  what which where when while via per vs up out off down than then so not no all some any each every
  other another more most very just also only here there how why if because like unlike against toward
  towards through throughout within upon across around along next top front
  de del della di da das dos du des la le les el los las il lo un una une uno ein eine der die dem den
  im am sur dans avec und mit en het een van von zu y e et och og sul sulla nel nella dello auf im op em
  no na num numa uma um`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Lower-case particles allowed inside a name ("Ludwig van Beethoven", "Vincent de Paul"). */
export const PARTICLES: ReadonlySet<string> = new Set([
  'de',
  'da',
  'di',
  'del',
  'della',
  'dos',
  'das',
  'du',
  'van',
  'von',
  'der',
  'den',
  'la',
  'le',
  'bin',
  'ibn',
  'al',
  'el',
  'ter',
  'ten',
]);

/** Words that introduce a name in any casing: "photo by …", "featuring …". */
export const CUE_WORDS: ReadonlySet<string> = new Set(['by', 'featuring', 'feat', 'ft', 'starring', 'meet', 'congratulations']);

export const MONTHS_AND_DAYS: ReadonlySet<string> = new Set(
  `january february march april may june july august september october november december jan feb mar apr
  jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Prepositions after which a capitalised single word is a place rather than a person. */
export const PLACE_PREPOSITIONS: ReadonlySet<string> = new Set([
  'in',
  'at',
  'from',
  'near',
  'across',
  'around',
  'outside',
  'inside',
  'downtown',
  'to',
  'into',
  'visiting',
  'visit',
  'of',
]);
