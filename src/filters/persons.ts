/**
 * Person-name detection for alt-text (CC12M §2.2: "we replace person names with a special
 * <PERSON> token"; CC3M §3: names are hypernymised to "actor", "person", …).
 *
 * There is no NER model here: the detector combines
 *  - capitalisation patterns (runs of Capitalised tokens in ordinarily cased text),
 *  - a general list of common international given names written for cckit (persons/names.ts;
 *    not the world's own name lists),
 *  - WordNet 3.1 as a dictionary: a token that WordNet knows as an ordinary (non-instance) word is
 *    weak evidence for a name; multi-word instances that are places, buildings or organisations
 *    ("Los Angeles", "Eiffel Tower") are not persons,
 *  - context cues: an occupation or title before the name ("actor Harrison Ford", "President …",
 *    "Architetto …"; a lower-case noun WordNet knows mostly as a kind of person: "fisherman …"), "by" / "featuring" / "belonging to" before it, place designators after it
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
 * are kept on purpose (see `nameEvidence` in persons/evidence.ts).
 *
 * Spans are character offsets [start, end) into the caption; a possessive "'s" is not part of
 * the span. `role` is the occupation word directly before the name, when there is one (CC3M's
 * hypernymisation puts it in the name's place).
 *
 * ## Layout
 * This file is the entry point; the detector's parts live in src/filters/persons/ so each reads on its own: the
 * word lists (`words.ts`, `names.ts`), WordNet look-ups (`wordnet-lookups.ts`), tokens and case mode (`tokens.ts`),
 * the tests on a capitalised run (`evidence.ts`) and the two scans that use them (`detect.ts`).
 */
import { PERSON_TOKEN } from '../text/tokens';
import { tokenize, caseMode } from './persons/tokens';
import { detectNoisy, detectNormal } from './persons/detect';
import { roleBefore } from './persons/evidence';

export { isGivenName } from './persons/names';
export { ROLE_WORDS } from './persons/words';
export type { EntityKind } from './persons/wordnet-lookups';
export { entityKinds, isOrdinaryWord } from './persons/wordnet-lookups';

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
