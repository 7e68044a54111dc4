/**
 * Person-name detection for alt-text (CC12M §2.2: "we replace person names with a special
 * <PERSON> token"; CC3M §3: names are hypernymised to "actor", "person", …).
 *
 * There is no NER model here: the detector combines
 *  - capitalisation patterns (runs of Capitalised tokens in ordinarily cased text),
 *  - a general list of common international given names written for cckit (GIVEN_NAMES below;
 *    not the world's own name lists),
 *  - WordNet 3.1 as a dictionary: a token that WordNet knows as an ordinary (non-instance) word is
 *    weak evidence for a name; multi-word instances that are places, buildings or organisations
 *    ("Los Angeles", "Eiffel Tower") are not persons,
 *  - context cues: an occupation or title before the name ("actor Harrison Ford", "President …",
 *    "Architetto …"), "by" / "featuring" / "belonging to" before it, place designators after it
 *    ("Main Street", "Mexico City") and the heads of things named after people ("M-3 Bradley
 *    Fighting Vehicle", "Saxony Coat of Arms"),
 *  - initials and suffixes ("Jon A. Cruz", "A.C. Fox-Davies", "Jose Fco. Hevia", "Martin Luther
 *    King Jr"); a possessive ends a name ("Jonathon's Duck"),
 *  - people WordNet knows: multi-word names ("Van Gogh", "Santa Claus") and single names it knows
 *    only as people ("Bach", "Beethoven"), alone or before a depiction ("Bach Cartoon Bust").
 *
 * A capitalised run found only because one of its words is unknown to WordNet also needs some
 * evidence of a name (`nameEvidence`: a given name from either list, a common surname, initials):
 * real alt-text is full of unknown words that are misspellings or other languages ("Gattina Cat",
 * "Brunei Darussalam"). Precision and recall on real captions are measured in
 * test/filters-persons.test.ts (test/fixtures/persons-real.tsv).
 *
 * Captions in ALL CAPS or Title Case carry no capitalisation signal; there ("noisy" case) a name
 * needs a given name, a cue, or two tokens WordNet does not know (and evidence, as above).
 *
 * Every change here is checked against the embedded world: the CC3M / CC12M pipelines' kept rows on
 * the world (tiny preset, seeds 0–2) must stay byte-identical, so a few of the world's old mistakes
 * are kept on purpose (see `nameEvidence`).
 *
 * Spans are character offsets [start, end) into the caption; a possessive "'s" is not part of
 * the span. `role` is the occupation word directly before the name, when there is one (CC3M's
 * hypernymisation puts it in the name's place).
 */
import { wordnet } from '../wordnet';
import { COMMON_GIVEN_NAME_TEXT, COMMON_SURNAME_TEXT } from './person-words';

export interface PersonSpan {
  start: number;
  end: number;
  text: string;
  /** Lower-case occupation / title word directly before the name ("actor"), if any. */
  role?: string;
}

export interface FindPersonsOptions {
  /** Use the name lists (default true; false measures the other cues alone, without the evidence check). */
  givenNames?: boolean;
}

/** The token CC12M puts in place of a name. */
import { PERSON_TOKEN } from '../text/tokens';

// ------------------------------------------------------------------ word lists

/**
 * Common given names from many languages (written for cckit; a few hundred, not exhaustive).
 * Matched case- and accent-insensitively; hyphenated names match when every part does.
 */
const GIVEN_NAME_TEXT = `
james john robert michael william richard joseph thomas charles christopher daniel matthew anthony mark
donald steven paul andrew joshua kenneth kevin brian george timothy ronald edward jason jeffrey ryan jacob
gary nicholas eric jonathan stephen larry justin scott brandon benjamin ben samuel sam gregory frank
alexander raymond patrick jack dennis jerry tyler aaron henry adam douglas nathan peter zachary kyle
walter harold jeremy ethan carl keith roger gerald christian terry sean arthur austin noah lawrence jesse
joe bryan billy jordan albert dylan bruce willie gabriel alan juan logan wayne ralph roy eugene randy
vincent russell louis philip bobby johnny bradley harry oliver jake liam lucas mason elijah owen leo
luke isaac hugo oscar max felix theo toby freddie alfie archie charlie harrison tom tim tony steve mike
chris nick dave rick bill bob jim ted ed ian neil colin graham simon martin stuart ross dean craig
mary patricia jennifer linda elizabeth barbara susan jessica sarah karen nancy lisa betty margaret sandra
ashley kimberly emily donna michelle dorothy carol amanda melissa deborah stephanie rebecca sharon laura
cynthia kathleen amy shirley angela helen anna brenda pamela nicole emma samantha katherine christine
debra rachel catherine carolyn janet ruth maria heather diane virginia julie joyce victoria olivia kelly
christina lauren joan evelyn judith megan cheryl andrea hannah martha jacqueline frances gloria ann
teresa kathryn sara janice jean alice madison doris abigail julia judy grace denise amber marilyn
beverly danielle theresa sophia marie diana brittany natalie isabella charlotte rose alexis kayla
chloe ava mia lily zoe ella amelia harper evelyn ellie lucy sophie jessica holly kate katie molly
poppy freya isla ruby daisy alice florence phoebe imogen eleanor georgia matilda scarlett violet
taylor morgan quinn riley casey jamie alex sam robin leslie dana kim lee
jose luis carlos jorge pedro miguel antonio manuel francisco javier alejandro diego pablo sergio
fernando ricardo rafael andres eduardo roberto mario raul enrique alberto emilio hector ramon
ignacio santiago mateo nicolas gonzalo alvaro rodrigo joao tiago goncalo rui nuno paulo marcos thiago
lucia sofia carmen elena isabel paula laura marta cristina ana pilar teresa rocio beatriz ines
camila valentina gabriela daniela mariana fernanda adriana carla patricia veronica natalia andrea
jean pierre michel philippe alain jacques bernard francois louis nicolas julien antoine mathieu
guillaume olivier laurent sebastien thierry pascal vincent yves remi benoit etienne hugues clement
marie nathalie isabelle sylvie catherine francoise christine monique valerie sandrine celine aurelie
camille manon chloe lea juliette margaux amelie elodie claire helene sophie emilie mathilde
hans peter klaus jurgen wolfgang michael stefan andreas thomas frank uwe dieter karl heinz gunter
matthias markus sebastian tobias florian lukas jonas leon finn felix maximilian moritz niklas jan
ursula monika petra sabine andrea claudia susanne birgit katharina julia lena laura lea hanna anja
sven lars erik nils anders magnus olaf johan henrik mats per bjorn ingrid astrid sigrid karin freja
ebba maja elsa linnea saga liv signe
giuseppe giovanni francesco antonio mario luigi marco andrea alessandro paolo stefano roberto luca
matteo lorenzo davide simone riccardo federico fabio massimo giorgio enzo salvatore vittorio
giulia francesca chiara sara alessandra valentina martina elisa federica silvia giorgia alessia
aleksandr alexei dmitri sergei andrei ivan nikolai vladimir mikhail pavel yuri igor oleg boris
piotr pawel krzysztof tomasz marek jakub lukasz milan petr jiri tomas marcel dusan goran zoran
olga natalia tatiana elena irina svetlana anastasia ekaterina maria anna katarzyna agnieszka
magdalena zofia ewa tereza petra jana lucie eva vera nadia marina daria ksenia
georgios dimitris nikos yannis kostas eleni katerina sofia despina
mohammed muhammad ahmed ahmad ali omar umar hassan hussein ibrahim yusuf youssef khalid karim
mustafa mahmoud tariq samir nabil walid rami hamza bilal amir reza mehdi hamid farid
fatima aisha khadija zainab maryam leila layla nour yasmin amira salma hana rania yara samira
mehmet ahmet mustafa emre burak murat can cem elif zeynep ayse fatma emine merve
rahul raj amit vikram arjun rohan sanjay anil sunil ravi vijay ajay ashok deepak suresh ramesh
arun karan nikhil aditya krishna ganesh
priya pooja anjali divya neha kavya deepika sunita lakshmi meera ananya aishwarya shreya riya
hiroshi takashi kenji yuki haruto kenta daisuke takumi shota ryo kazuki satoshi akira naoki
yuko keiko yoko akiko naomi sakura hana aiko emi mai yui rin
wei li ming jun hao lei jie yang chen hui mei ling xiu yan fang jing
minjun jihoon seojun jiwoo minseo seoyeon jisoo jiyeon
kwame kofi kojo ama akua chinedu emeka ngozi chioma oluwaseun tunde amara zuri thabo sipho
nomvula lindiwe themba
david daniel michael sarah rachel rebecca leah miriam esther yosef moshe avi noa tamar yael
`;

let givenNameSet: Set<string> | undefined;

function fold(word: string): string {
  return word
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase();
}

/** Whether `word` is a common given name (case- and accent-insensitive; "Jean-Luc": every part). */
export function isGivenName(word: string): boolean {
  givenNameSet ??= new Set(GIVEN_NAME_TEXT.split(/\s+/).filter((w) => w.length > 0));
  const folded = fold(word);
  if (givenNameSet.has(folded)) return true;
  const parts = folded.split('-');
  return parts.length > 1 && parts.every((p) => givenNameSet!.has(p));
}

let commonGivenSet: Set<string> | undefined;
let commonSurnameSet: Set<string> | undefined;

const wordSet = (text: string): Set<string> => new Set(text.split(/\s+/).filter((w) => w.length > 0 && !PARTICLES.has(w)));

/** Whether `word` is in person-words.ts's wider list of given names (evidence only, see there). */
function isCommonGivenName(word: string): boolean {
  commonGivenSet ??= wordSet(COMMON_GIVEN_NAME_TEXT);
  const folded = fold(word);
  return commonGivenSet.has(folded) || folded.split('-').every((p) => commonGivenSet!.has(p));
}

/** Whether `word` is in person-words.ts's list of common surnames. */
function isCommonSurname(word: string): boolean {
  commonSurnameSet ??= wordSet(COMMON_SURNAME_TEXT);
  return commonSurnameSet.has(fold(word));
}

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
const TITLE_WORDS: ReadonlySet<string> = new Set(
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
function isRole(key: string): boolean {
  return ROLE_WORDS.has(key) || TITLE_WORDS.has(key);
}

/**
 * Heads that make a capitalised run a thing named after someone, not the person: vehicles, weapons,
 * heraldry and emblems, maps ("M-3 Bradley Fighting Vehicle", "Saxony Coat of Arms", "Peters Map").
 */
const THING_HEADS: ReadonlySet<string> = new Set(
  `vehicle vehicles car cars truck trucks tank tanks jeep tractor bus plane planes airplane aircraft jet fighter
  bomber helicopter ship ships boat boats yacht submarine locomotive rifle rifles gun guns pistol revolver cannon
  missile rocket flag flags banner coat arms crest shield emblem seal badge insignia coin coins medal map maps
  atlas globe logo`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** What shows a person: "Bach Cartoon Bust", "Lincoln Portrait". */
const DEPICTIONS: ReadonlySet<string> = new Set(
  `bust busts portrait portraits statue statues sculpture caricature cartoon cartoons drawing drawings sketch
  sketches painting paintings picture pictures photo photos photograph image images face head heads silhouette
  profile mask figure figurine doll puppet effigy likeness icon`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Name suffixes ("Martin Luther King Jr", "Henry VIII"). */
const NAME_SUFFIXES: ReadonlySet<string> = new Set(['jr', 'sr', 'jnr', 'snr', 'ii', 'iii', 'iv', 'vi', 'vii', 'viii']);

/** Heads that make a capitalised phrase a place, building, event or organisation, not a person. */
const DESIGNATORS: ReadonlySet<string> = new Set(
  `street st avenue ave road rd boulevard blvd lane drive square plaza place way highway bridge tower towers
  city town village county state province district island islands isle lake river sea ocean bay beach
  coast harbour harbor port falls mountain mountains mount mt hill hills valley canyon desert forest
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
const BRANDS: ReadonlySet<string> = new Set(
  `toyota honda nissan mazda subaru hyundai kia bmw audi volkswagen vw porsche mercedes mercedes-benz ferrari
  lamborghini fiat chevrolet chevy cadillac jeep tesla volvo peugeot renault citroen skoda lexus
  apple samsung sony canon nikon panasonic lg huawei xiaomi google microsoft nintendo playstation xbox
  iphone ipad macbook nike adidas puma reebok gucci prada chanel dior versace armani zara ikea lego
  disney marvel pixar starbucks mcdonalds coca-cola pepsi heineken nestle airbus boeing yamaha harley`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Function words (never part of a name; a name run breaks on them). Some foreign ones too. */
const FUNCTION_WORDS: ReadonlySet<string> = new Set(
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
const PARTICLES: ReadonlySet<string> = new Set([
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
const CUE_WORDS: ReadonlySet<string> = new Set(['by', 'featuring', 'feat', 'ft', 'starring', 'meet', 'congratulations']);

const MONTHS_AND_DAYS: ReadonlySet<string> = new Set(
  `january february march april may june july august september october november december jan feb mar apr
  jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Prepositions after which a capitalised single word is a place rather than a person. */
const PLACE_PREPOSITIONS: ReadonlySet<string> = new Set([
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

// ------------------------------------------------------------ WordNet lookups

let ids: { person: string; location: string; organization: string; structure: string; city: string; country: string[] } | undefined;

function anchorIds(): NonNullable<typeof ids> {
  if (ids) return ids;
  const wn = wordnet();
  const first = (lemma: string, gloss: RegExp): string => {
    const found = wn.synsetsOfLemma(lemma, 'n').find((id) => gloss.test(wn.synset(id).gloss)) ?? wn.synsetsOfLemma(lemma, 'n')[0];
    if (found === undefined) throw new Error(`persons: WordNet has no noun "${lemma}"`);
    return found;
  };
  ids = {
    person: first('person', /human/),
    location: first('location', /point or extent in space/),
    organization: first('organization', /group of people/),
    structure: first('structure', /constructed/),
    city: first('city', /large and densely populated/),
    country: ['state', 'country', 'nation'].map((l) => wn.synsetsOfLemma(l, 'n')[0]!).filter((x) => x !== undefined),
  };
  return ids;
}

const ancestorMemo = new Map<string, Set<string>>();

/** All hypernyms (class and instance pointers), transitively. */
function ancestorsOf(id: string): Set<string> {
  const memo = ancestorMemo.get(id);
  if (memo) return memo;
  const out = new Set<string>();
  ancestorMemo.set(id, out);
  for (const h of wordnet().hypernyms(id)) {
    out.add(h);
    for (const a of ancestorsOf(h)) out.add(a);
  }
  return out;
}

/** What kind of named thing WordNet says a phrase is: its instance senses' classes. */
export type EntityKind = 'person' | 'city' | 'country' | 'location' | 'structure' | 'organization' | 'other';

const entityMemo = new Map<string, EntityKind[]>();

/**
 * Kinds of the WordNet *instance* senses of a (possibly multi-word) phrase, most frequent sense
 * first: "Los Angeles" → ["city"], "Harrison" → ["person", …], "Eiffel Tower" → ["structure"].
 * Empty when WordNet has no instance of that name.
 */
export function entityKinds(phrase: string): EntityKind[] {
  const key = fold(phrase).trim().replace(/[\s]+/g, '_');
  const memo = entityMemo.get(key);
  if (memo) return memo;
  const wn = wordnet();
  const a = anchorIds();
  const kinds: EntityKind[] = [];
  for (const id of key.length > 0 ? wn.synsetsOfLemma(key, 'n') : []) {
    const rec = wn.synset(id);
    if (!rec.pointers.some((p) => p.symbol === '@i')) continue;
    const anc = ancestorsOf(id);
    let kind: EntityKind = 'other';
    if (anc.has(a.person)) kind = 'person';
    else if (anc.has(a.city)) kind = 'city';
    else if (a.country.some((c) => anc.has(c))) kind = 'country';
    else if (anc.has(a.location)) kind = 'location';
    else if (anc.has(a.structure)) kind = 'structure';
    else if (anc.has(a.organization)) kind = 'organization';
    if (!kinds.includes(kind)) kinds.push(kind);
  }
  entityMemo.set(key, kinds);
  return kinds;
}

const ordinaryMemo = new Map<string, boolean>();

/**
 * Whether WordNet knows `word` as an ordinary word: a lemma (after morphy) of some part of speech
 * with at least one non-instance sense ("young", "brooks" → brook, "grace"), or a function word.
 */
export function isOrdinaryWord(word: string): boolean {
  const w = fold(word);
  const memo = ordinaryMemo.get(w);
  if (memo !== undefined) return memo;
  let ordinary = FUNCTION_WORDS.has(w);
  if (!ordinary) {
    const wn = wordnet();
    for (const id of wn.synsetsOf(w)) {
      if (id.charAt(0) !== 'n' || !wn.synset(id).pointers.some((p) => p.symbol === '@i')) {
        ordinary = true;
        break;
      }
    }
  }
  ordinaryMemo.set(w, ordinary);
  return ordinary;
}

/** A place (city, country, other location) that is never a person in WordNet. */
function isPlaceOnly(phrase: string): boolean {
  const kinds = entityKinds(phrase);
  return (
    kinds.length > 0 &&
    !kinds.includes('person') &&
    kinds.some((k) => k === 'city' || k === 'country' || k === 'location' || k === 'structure' || k === 'organization')
  );
}

// ------------------------------------------------------------------ tokens

interface Token {
  text: string;
  /** Lower-case, accents folded, possessive removed. */
  key: string;
  start: number;
  /** End of the name part (before a possessive "'s"). */
  end: number;
  /** Starts with an upper-case letter. */
  cap: boolean;
  /** Entirely upper-case (length ≥ 2). */
  upper: boolean;
  /** A single letter (possibly followed by "."): an initial when capitalised. */
  initial: boolean;
  /** Directly followed by "." ("A." in "Jon A. Cruz", "C" in "A.C. Fox-Davies"). */
  dotted: boolean;
  /** An abbreviated name part of two or three letters with its full stop ("Jose Fco. Hevia", "Wm."). */
  abbrev: boolean;
  /** The text between the previous token and this one. */
  gap: string;
  /** Ends in a possessive "'s": a name ends there ("Jonathon's Duck"). */
  possessive: boolean;
  /** First token of a sentence or of a segment after ":", "|", " - ", quotes. */
  sentenceStart: boolean;
  /** Joined to the previous token by plain whitespace (or "X. " after an initial). */
  joined: boolean;
  /** A hashtag / @mention / number-like token: never part of a name. */
  skip: boolean;
}

// C1 control characters (U+0080–U+009F) stay inside a word: they are letters decoded with the wrong code
// page ("Mikolá\u009a" for "Mikoláš")
const TOKEN_RE = /[\p{L}\p{N}][\p{L}\p{M}\p{N}\u0080-\u009f]*(?:['’-][\p{L}\p{N}][\p{L}\p{M}\p{N}\u0080-\u009f]*)*/gu;

function tokenize(caption: string): Token[] {
  const out: Token[] = [];
  let prevEnd = 0;
  let prev: Token | undefined;
  for (const m of caption.matchAll(TOKEN_RE)) {
    const text = m[0];
    const start = m.index!;
    const gap = caption.slice(prevEnd, start);
    const possessive = /['’]s$/i.test(text) && text.length > 2;
    const core = possessive ? text.slice(0, -2) : text;
    const first = core.charAt(0);
    const cap = first !== first.toLowerCase() && first === first.toUpperCase();
    const letters = core.replace(/[^\p{L}]/gu, '');
    const upper = letters.length >= 2 && letters === letters.toUpperCase() && letters !== letters.toLowerCase();
    const initial = letters.length === 1 && cap;
    const prevChar = start > 0 ? caption.charAt(start - 1) : '';
    const skip = prevChar === '#' || prevChar === '@' || /\d/.test(core) || letters.length === 0;
    const dotted = caption.charAt(start + text.length) === '.';
    const abbrev =
      cap &&
      !upper &&
      !possessive &&
      dotted &&
      (letters.length === 2 || letters.length === 3) &&
      /\s/.test(caption.charAt(start + text.length + 1)) &&
      nameAbbreviation(fold(core));
    const afterInitial = prev !== undefined && (prev.initial || prev.abbrev);
    let joined = prev !== undefined && /^\s+$/.test(gap);
    if (!joined && afterInitial && /^\.\s*$/.test(gap)) joined = true;
    const sentenceStart =
      prev === undefined || /[.!?:|;"“”()[\]]/.test(gap.replace(/^\.\s*$/, afterInitial ? '' : '.')) || /\s[-–—]\s/.test(gap) || /^[-–—]\s/.test(gap);
    const token: Token = {
      text,
      key: fold(core),
      start,
      end: start + core.length,
      cap,
      upper,
      initial,
      dotted,
      abbrev,
      gap,
      possessive,
      sentenceStart,
      joined,
      skip,
    };
    out.push(token);
    prev = token;
    prevEnd = start + text.length;
  }
  return out;
}

/** "Fco" (Francisco), "Wm" (William): not a word, a name, a title, a designator or a month. */
function nameAbbreviation(key: string): boolean {
  return (
    !isOrdinaryWord(key) &&
    !isGivenName(key) &&
    !isCommonGivenName(key) &&
    !isRole(key) &&
    !DESIGNATORS.has(key) &&
    !NAME_SUFFIXES.has(key) &&
    !MONTHS_AND_DAYS.has(key) &&
    !CUE_WORDS.has(key)
  );
}

type CaseMode = 'normal' | 'noisy';

/** ALL CAPS or Title Case text carries no capitalisation signal. */
function caseMode(tokens: readonly Token[]): CaseMode {
  const words = tokens.filter((t) => !t.skip && t.key.length >= 2);
  if (words.length < 2) return 'normal';
  const upper = words.filter((t) => t.upper).length;
  if (upper / words.length >= 0.8) return 'noisy';
  if (words.length >= 3 && words.filter((t) => t.cap).length / words.length >= 0.85) return 'noisy';
  const inner = words.filter((t) => !t.sentenceStart);
  if (inner.length < 2) return 'normal';
  const capInner = inner.filter((t) => t.cap).length;
  // Title Case: capitalised function words inside the text, or almost every word capitalised
  const capFunction = inner.some((t) => t.cap && FUNCTION_WORDS.has(t.key) && !PARTICLES.has(t.key));
  if (capFunction && capInner / inner.length >= 0.6) return 'noisy';
  if (capInner / inner.length >= 0.85 && inner.length >= 3) return 'noisy';
  return 'normal';
}

// ------------------------------------------------------------------ detector

/**
 * A capital letter with a full stop, followed by a capitalised word: an initial ("Jon A. Cruz",
 * "A.C. Fox-Davies"), never the article or the pronoun "I".
 */
function nameInitial(tokens: readonly Token[], k: number): boolean {
  const t = tokens[k];
  const next = tokens[k + 1];
  return t !== undefined && (t.initial || t.abbrev) && t.dotted && next !== undefined && next.joined && next.cap && !next.skip;
}

/** A token that cannot be any part of a name. */
function nonName(t: Token): boolean {
  return t.skip || FUNCTION_WORDS.has(t.key) || MONTHS_AND_DAYS.has(t.key) || DESIGNATORS.has(t.key) || isRole(t.key) || CUE_WORDS.has(t.key);
}

function roleBefore(tokens: readonly Token[], i: number): string | undefined {
  const prev = tokens[i - 1];
  if (prev === undefined || prev.skip) return undefined;
  if (ROLE_WORDS.has(prev.key)) return prev.key;
  return undefined;
}

function cueBefore(tokens: readonly Token[], i: number): boolean {
  const prev = tokens[i - 1];
  if (prev === undefined) return false;
  if (CUE_WORDS.has(prev.key) || isRole(prev.key)) return true;
  const prev2 = tokens[i - 2];
  return prev.key === 'to' && prev2 !== undefined && (prev2.key === 'belonging' || prev2.key === 'belongs' || prev2.key === 'thanks');
}

/**
 * Whether a capitalised run found without a cue looks like a person's name at all: a given name
 * (either list), a person WordNet knows by the whole run, initials, or a common surname at its end. Without this, a
 * word WordNet does not know was enough, and real titles are full of those: misspellings and
 * other languages ("Gattina Cat", "Volleball Net", "Stara Ksiega", "Brunei Darussalam").
 */
function nameEvidence(tokens: readonly Token[], i: number, j: number): boolean {
  const words = tokens.slice(i, j).filter((t) => !PARTICLES.has(t.key));
  const last = words[words.length - 1];
  if (last === undefined) return false;
  // Left as they were, because the embedded world's filtered pools depend on them: runs of four words
  // or more (the CC3M paper's example "… the Taj Mahal Hotel November 7, 2005", notebook 02) and runs
  // opening with a compound of ordinary words ("A Red-Bellied Snake.", a kept row of the world).
  if (j - i >= 4 || (words[0]!.key.includes('-') && words[0]!.key.split('-').every((p) => isOrdinaryWord(p)))) return true;
  if (words.some((t) => isGivenName(t.key) || isCommonGivenName(t.key) || (t.initial && t.dotted))) return true;
  if (words.length > 1 && entityKinds(words.map((t) => t.key).join(' ')).includes('person')) return true;
  // a common surname that is not also an English word ("Meijer", not "Black")
  if (words.length > 1 && isCommonSurname(last.key) && !isOrdinaryWord(last.key)) return true;
  return false;
}

/**
 * "Clipart by Steve Hall": after a cue, a given name and one more word that is a designator but
 * also a surname (WordNet has people of that name: Hall, Park, Field) make a name, not a building.
 */
function surnameAfterCue(words: readonly Token[], cue: boolean, firstGiven: boolean): boolean {
  if (!cue || !firstGiven) return false;
  const rest = words.slice(1).filter((t) => !t.initial);
  return rest.length === 1 && entityKinds(rest[0]!.key).includes('person');
}

/** "Saint Lucia", "Saint Kitts": a title and what follows it are together a place WordNet knows. */
function titledPlace(tokens: readonly Token[], i: number, j: number): boolean {
  const prev = tokens[i - 1];
  if (prev === undefined || !isRole(prev.key)) return false;
  for (let k = i + 1; k <= j; k++) {
    const kinds = entityKinds([prev, ...tokens.slice(i, k)].map((t) => t.key).join(' '));
    if (kinds.length > 0 && !kinds.includes('person')) return true;
  }
  return false;
}

/** A common surname, or a word WordNet knows as the name of people (Hall, Brooks, Young). */
function surnameLike(key: string): boolean {
  return isCommonSurname(key) || entityKinds(key).includes('person');
}

const famousMemo = new Map<string, boolean>();

/**
 * A capitalised word WordNet knows only as people's name: its instances are all persons and its
 * ordinary noun senses, if any, name them too ("Bach": "the music of Bach"). "Hall" or "Lincoln" are
 * not (a room; a city).
 */
function famousName(t: Token): boolean {
  if (!t.cap || t.upper || t.key.length < 3) return false;
  let v = famousMemo.get(t.key);
  if (v === undefined) {
    const kinds = entityKinds(t.key);
    const wn = wordnet();
    const name = t.key.charAt(0).toUpperCase() + t.key.slice(1);
    v =
      kinds.length > 0 &&
      kinds.every((k) => k === 'person') &&
      wn.synsetsOfLemma(t.key, 'n').every((id) => {
        const rec = wn.synset(id);
        return rec.pointers.some((p) => p.symbol === '@i') || rec.gloss.includes(name);
      });
    famousMemo.set(t.key, v);
  }
  return v;
}

/**
 * "Bach Cartoon Bust", "a portrait of Beethoven": a famous name opening a capitalised run [a, j)
 * whose other words are ordinary ones, none a designator or a thing's head ("Carnegie Library").
 */
function famousAt(tokens: readonly Token[], a: number, j: number): boolean {
  if (!famousName(tokens[a]!)) return false;
  // "Melba Toast", "Napoleon Brandy": a compound WordNet knows as an ordinary noun
  if (
    j > a + 1 &&
    isOrdinaryWord(
      tokens
        .slice(a, a + 2)
        .map((u) => u.key)
        .join('_'),
    )
  )
    return false;
  // alone, or before what depicts the person: "Bach Cartoon Bust", but not "Tamerlane Chess"
  const rest = tokens.slice(a + 1, j);
  return (
    rest.length === 0 ||
    (rest.every((u) => isOrdinaryWord(u.key) && !DESIGNATORS.has(u.key) && !THING_HEADS.has(u.key)) && rest.some((u) => DEPICTIONS.has(u.key)))
  );
}

/**
 * "A US “Sacagawea” dollar": the word after a name, in lower case with only spaces or quotes between,
 * is a noun that cannot be a verb, so the name names the thing.
 */
function namesNoun(tokens: readonly Token[], j: number): boolean {
  const next = tokens[j];
  if (next === undefined || next.cap || next.skip || !/^[\s"'“”‘’]+$/.test(next.gap)) return false;
  const wn = wordnet();
  return hasNounSense(next.key) && wn.lemmaBaseForms(next.key, 'v').length === 0 && !FUNCTION_WORDS.has(next.key);
}

/** Whether tokens [i, j) look like a person's name rather than a place or an ordinary phrase. */
function plausibleName(tokens: readonly Token[], i: number, j: number, given: boolean, cue: boolean, normalCase: boolean): boolean {
  const words = tokens.slice(i, j).filter((t) => !PARTICLES.has(t.key) || t.cap);
  if (words.length === 0) return false;
  const last = words[words.length - 1]!;
  const firstGiven = given && isGivenName(words[0]!.key);
  if (DESIGNATORS.has(last.key) && !surnameAfterCue(words, cue, firstGiven)) return false;
  if (THING_HEADS.has(last.key) || TITLE_WORDS.has(last.key) || titledPlace(tokens, i, j)) return false;
  const phrase = words.map((t) => t.key).join(' ');
  if (isPlaceOnly(phrase)) return false;
  // a person WordNet knows by this name ("Van Gogh", "Santa Claus")
  if (words.length > 1 && entityKinds(phrase).includes('person')) return true;
  // "Florence Flag": a given name that is a place, then only ordinary words
  if (firstGiven && words.length > 1 && isPlaceOnly(words[0]!.key) && words.slice(1).every((t) => isOrdinaryWord(t.key) && !surnameLike(t.key))) return false;
  // "Mount Everest", "Lake Como": a leading designator; "Toyota Corolla": a brand
  if (DESIGNATORS.has(words[0]!.key) || BRANDS.has(words[0]!.key)) return false;
  if (words.length === 1) {
    const t = words[0]!;
    const prev = tokens[i - 1];
    // "Prince Rainier", "President Lincoln": a title settles it even for a place-like word
    if (cue && prev !== undefined && isRole(prev.key)) return !isOrdinaryWord(t.key) || firstGiven;
    if (isPlaceOnly(t.key)) return false;
    if (prev && PLACE_PREPOSITIONS.has(prev.key) && !cue) return false;
    if (cue) return !isOrdinaryWord(t.key) || firstGiven;
    const givenAny = given && (firstGiven || isCommonGivenName(t.key));
    // "Abe's face" anywhere; "Jonathon's Duck" at the start too
    return givenAny && !isOrdinaryWord(t.key) && (!t.sentenceStart || t.possessive);
  }
  if (firstGiven) return true;
  // A capitalised run after "by" / a role word is a name (in noisy case: two words or more).
  if (cue && (normalCase || words.length >= 2)) return true;
  // Otherwise one token must be a word (3+ letters) WordNet does not know, neither as an ordinary
  // word nor as a place ("Real Madrid" is not a name).
  // A place-like first word followed by a non-place ("Tara Brooks", "Paris Hilton") still counts;
  // landmarks and teams after a place name end in a designator, rejected above.
  return words.some((t, k) => !t.initial && t.key.length >= 3 && !isOrdinaryWord(t.key) && (!isPlaceOnly(t.key) || (k === 0 && !isPlaceOnly(last.key))));
}

/**
 * The end k of the longest tokens [a, k), k ≤ j, two words or more, that are a person WordNet knows
 * ("Van Gogh", "Santa Claus"); -1 when there is none, or when a longer one is something else
 * ("Prince Edward Island").
 */
function personPhraseEnd(tokens: readonly Token[], a: number, j: number): number {
  for (let k = Math.min(j, a + 4); k >= a + 2; k--) {
    const kinds = entityKinds(
      tokens
        .slice(a, k)
        .map((t) => t.key)
        .join(' '),
    );
    if (kinds.includes('person')) return k;
    if (kinds.length > 0) return -1;
  }
  return -1;
}

function personPhraseAt(tokens: readonly Token[], a: number, j: number): boolean {
  return personPhraseEnd(tokens, a, j) > 0;
}

/**
 * A sentence-initial capitalised word that WordNet knows ("Rosa", "Grace") still starts a name
 * when it is a given name, or when it can be a noun and a later word of the run is unknown to
 * WordNet ("Rosa Okafor with a desk").
 */
function keepsInitialWord(tokens: readonly Token[], a: number, j: number, given: boolean): boolean {
  const t = tokens[a]!;
  if (given && isGivenName(t.key)) return true;
  if (!hasNounSense(t.key)) return false;
  return tokens.slice(a + 1, j).some((u) => !u.initial && u.key.length >= 3 && !isOrdinaryWord(u.key));
}

const nounMemo = new Map<string, boolean>();

function hasNounSense(word: string): boolean {
  let v = nounMemo.get(word);
  if (v === undefined) {
    v = wordnet().lemmaBaseForms(word, 'n').length > 0;
    nounMemo.set(word, v);
  }
  return v;
}

/**
 * Where a name starts in a capitalised run [a, b) that no cue introduces: at a given name followed by a
 * surname when no word before it is a name part ("Bibliografia Francesco Rollandin": a title's word in title
 * case, not a name). a stays when a word before the given name can be one (a given name: "Mary Ann Smith"; an
 * initial; a particle; a surname WordNet or the list knows) or when a given name follows it (surname first:
 * "Rollandin Francesco Maria"). After a cue the run is a name from its start ("by Celso Emilio Ferreiro").
 */
function givenNameStart(tokens: readonly Token[], a: number, b: number): number {
  for (let p = a + 1; p + 1 < b; p++) {
    const at = tokens[p]!;
    const next = tokens[p + 1]!;
    if (!isGivenName(at.key) || !next.cap || PARTICLES.has(next.key) || isGivenName(next.key) || isCommonGivenName(next.key)) continue;
    const before = tokens.slice(a, p);
    const namePart = (u: Token): boolean =>
      u.initial || u.abbrev || PARTICLES.has(u.key) || isGivenName(u.key) || isCommonGivenName(u.key) || surnameLike(u.key) || NAME_SUFFIXES.has(u.key);
    if (before.some(namePart)) return a;
    return p;
  }
  return a;
}

function detectNormal(tokens: readonly Token[], given: boolean): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i]!;
    if (t.skip || !t.cap || (t.upper && !t.initial && t.key.length <= 5 && !isGivenName(t.key))) {
      i++;
      continue;
    }
    // a run of capitalised tokens (particles and initials allowed inside)
    let j = i + 1;
    while (j < tokens.length) {
      const u = tokens[j]!;
      if (!u.joined || u.skip || u.sentenceStart || tokens[j - 1]!.possessive) break;
      // an acronym ends the run ("Profilati Profilato IPE IPN"), as it cannot open one
      if (u.cap && !(u.upper && !u.initial && u.key.length <= 5 && !isGivenName(u.key) && !NAME_SUFFIXES.has(u.key))) {
        j++;
        continue;
      }
      const next = tokens[j + 1];
      if (PARTICLES.has(u.key) && next && next.joined && next.cap) {
        j += 2;
        continue;
      }
      break;
    }
    let a = i;
    // leading role words, titles, function words and a sentence-initial ordinary word ("Actor", "A")
    while (a < j) {
      const u = tokens[a]!;
      if (isRole(u.key) || CUE_WORDS.has(u.key) || (FUNCTION_WORDS.has(u.key) && !nameInitial(tokens, a)) || MONTHS_AND_DAYS.has(u.key)) {
        a++;
        continue;
      }
      if (a === i && u.sentenceStart && isOrdinaryWord(u.key) && !(a + 1 < j && keepsInitialWord(tokens, a, j, given)) && !personPhraseAt(tokens, a, j)) {
        a++;
        continue;
      }
      // "C Rollandin Francesco", "W Italia", "U Turn": a capital letter without a full stop opening a sentence
      // labels a series or names a shape; an initial carries its full stop ("Jon A. Cruz") or sits inside a name
      if (a === i && u.sentenceStart && u.initial && !u.dotted && a + 1 < j) {
        a++;
        continue;
      }
      break;
    }
    let b = j;
    if (b - a > 4) {
      // a long capitalised run is a title or a name list: only a given name at its head counts
      const designated = tokens.slice(a, b).some((u) => DESIGNATORS.has(u.key));
      b = !designated && given && isGivenName(tokens[a]!.key) ? a + 2 : a;
    }
    if (a < b) {
      const cue = cueBefore(tokens, a);
      if (plausibleName(tokens, a, b, given, cue, true) && (cue || !given || nameEvidence(tokens, a, b)))
        spans.push([cue || !given ? a : givenNameStart(tokens, a, b), b]);
      else if (a === i && famousAt(tokens, a, j) && !namesNoun(tokens, j)) spans.push([a, a + 1]);
    }
    i = j;
  }
  return spans;
}

function detectNoisy(tokens: readonly Token[], given: boolean): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  const capable = (k: number): boolean => {
    const t = tokens[k];
    return t !== undefined && !nonName(t);
  };
  // the capitalised run [k, end) joined to the token at k
  const runEnd = (k: number): number => {
    let e = k + 1;
    while (e < tokens.length && tokens[e]!.cap && !tokens[e]!.skip && tokens[e]!.joined && !tokens[e]!.sentenceStart && !tokens[e - 1]!.possessive) e++;
    return e;
  };
  let i = 0;
  while (i < tokens.length) {
    const t = tokens[i]!;
    if (t.cap && !t.upper && (i === 0 || !tokens[i - 1]!.cap || !t.joined || t.sentenceStart)) {
      // a person WordNet knows by a name of two words or more ("Van Gogh", "Santa Claus")
      const e = runEnd(i);
      let k = personPhraseEnd(tokens, i, e);
      if (k > 0) {
        if (k < e && NAME_SUFFIXES.has(tokens[k]!.key)) k++; // "Martin Luther King Jr"
        spans.push([i, k]);
        i = k;
        continue;
      }
    }
    if (!capable(i)) {
      i++;
      continue;
    }
    const cue = cueBefore(tokens, i) && tokens[i]!.joined;
    const isGiven = given && isGivenName(t.key);
    const unknown = (k: number): boolean => capable(k) && !isOrdinaryWord(tokens[k]!.key) && !isPlaceOnly(tokens[k]!.key);
    const joinedCapable = (k: number): boolean => capable(k) && tokens[k]!.joined && !tokens[k]!.sentenceStart && !tokens[k - 1]?.possessive;
    // a capitalised word that ends the run (what follows is not a joined capitalised word)
    const surnameEnd = (k: number): boolean => {
      const u = tokens[k];
      const next = tokens[k + 1];
      return u !== undefined && !u.skip && u.cap && u.joined && !u.sentenceStart && !(next !== undefined && next.joined && !next.sentenceStart && next.cap);
    };
    let end = -1;
    if (cue || isGiven) {
      // take the name: at least two tokens when possible, more only while they are unknown words
      let j = i + 1;
      let m = j;
      while (nameInitial(tokens, m) && tokens[m]!.joined) m++;
      if (m > j && joinedCapable(m)) {
        // initials, then the surname: "Paul B. Joiner", "Pedro A. Gracia Fajardo"
        j = m + 1;
        while (j < m + 3 && joinedCapable(j) && unknown(j)) j++;
      } else if (cue && isGiven && surnameEnd(j)) {
        j++; // "BY STEVE HALL"
      } else if (joinedCapable(j) && (!isPlaceOnly(tokens[j]!.key) || (cue && !isPlaceOnly(t.key) && surnameEnd(j)))) {
        j++;
        while (j < i + 4 && joinedCapable(j) && (unknown(j) || (given && isGivenName(tokens[j]!.key) && unknown(j + 1)))) j++;
      }
      // "Martin Luther King Jr": a name suffix, and a role word just before one
      const suffix = (k: number): boolean => tokens[k] !== undefined && NAME_SUFFIXES.has(tokens[k]!.key) && tokens[k]!.joined && !tokens[k]!.sentenceStart;
      if (j > i + 1 && tokens[j] !== undefined && isRole(tokens[j]!.key) && tokens[j]!.joined && suffix(j + 1)) j += 2;
      else if (j > i + 1 && suffix(j)) j++;
      const n = j - i;
      if (n >= 2) {
        // an ordinary-word given name ("Grace", "May") needs a non-ordinary surname or a cue
        // and so does a given name that is also a place ("Virginia", "Florence")
        const rest = tokens.slice(i + 1, j);
        const ok = cue || (isPlaceOnly(t.key) ? rest.some((u) => !isOrdinaryWord(u.key)) : !isOrdinaryWord(t.key) || rest.some((u) => !isOrdinaryWord(u.key)));
        if (ok && plausibleName(tokens, i, j, given, cue, false)) end = j;
      } else if (cue && isRole(tokens[i - 1]!.key) && unknown(i) && !titledPlace(tokens, i, j)) {
        end = j; // "PRESIDENT OBAMA"
      }
    } else if (unknown(i) && joinedCapable(i + 1) && unknown(i + 1)) {
      // two words WordNet does not know, side by side ("INES IBARRA")
      let j = i + 2;
      while (j < i + 4 && joinedCapable(j) && unknown(j)) j++;
      if (plausibleName(tokens, i, j, given, false, false) && (!given || nameEvidence(tokens, i, j))) {
        end = j;
        if (given) i = givenNameStart(tokens, i, j);
      }
    }
    if (end < 0 && !(i > 0 && capable(i - 1) && t.joined && !t.sentenceStart)) {
      // "BACH CARTOON BUST" is upper case, so famousName declines it; "Bach Cartoon Bust" is not
      if (famousAt(tokens, i, runEnd(i))) end = i + 1;
    }
    if (end > i) {
      spans.push([i, end]);
      i = end;
    } else i++;
  }
  return spans;
}

/** Person names in `caption`, in text order, as character spans. */
export function findPersons(caption: string, options: FindPersonsOptions = {}): PersonSpan[] {
  const given = options.givenNames ?? true;
  const tokens = tokenize(caption);
  if (tokens.length === 0) return [];
  const spans = caseMode(tokens) === 'noisy' ? detectNoisy(tokens, given) : detectNormal(tokens, given);
  return spans.map(([a, b]) => {
    const start = tokens[a]!.start;
    const end = tokens[b - 1]!.end;
    const span: PersonSpan = { start, end, text: caption.slice(start, end) };
    const role = roleBefore(tokens, a);
    if (role !== undefined) span.role = role;
    return span;
  });
}

/** The caption with every detected name replaced by `token` (CC12M §2.2: "<PERSON>"). */
export function replacePersons(caption: string, token: string = PERSON_TOKEN, options: FindPersonsOptions = {}): string {
  const spans = findPersons(caption, options);
  if (spans.length === 0) return caption;
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += caption.slice(at, s.start) + token;
    at = s.end;
  }
  return out + caption.slice(at);
}
