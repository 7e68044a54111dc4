/**
 * SPICE (Anderson et al., ECCV 2016, "SPICE: Semantic Propositional Image Caption Evaluation"),
 * computed by cckit. A caption becomes a scene graph: objects, attributes of objects, and relations
 * between objects; the graph is read as a set of tuples
 *
 *   (object)                     e.g. (girl)
 *   (object, attribute)          e.g. (girl, young)
 *   (subject, relation, object)  e.g. (girl, stand on top of, court)
 *
 * For one image, T(c) is the candidate's tuple set and T(S) the union of its references' tuple
 * sets. With m = |T(c) ⊗ T(S)| the number of matched tuples, P = m / |T(c)|, R = m / |T(S)| and
 * F1 = 2PR / (P + R); the corpus value is the mean of the per-image F1 (the Java tool's "All" F).
 * Two tuples match when they have the same length and every element matches: equal lemmas, or the
 * two share a WordNet synset (src/wordnet, WordNet 3.1, morphy base forms included). Each tuple of
 * either side is used in at most one match (a maximum one-to-one matching), so P and R are ≤ 1.
 *
 * How this differs from the Java SPICE 1.0 jar (which cannot run here):
 * - Parsing. The jar runs the Stanford CoreNLP dependency parser and the Stanford Scene Graph
 *   Parser's rules over the dependency tree. cckit has neither: it tags the words with wink-nlp's
 *   English model (Universal POS tags) and applies the linear rules of parseSceneGraph() below over
 *   noun-phrase chunks. Long-distance attachments the dependency tree would resolve (a PP after
 *   a verb's object, relative clauses beyond "who/that/which", coordination of verbs) are guessed
 *   by position, so some relations differ from the jar's.
 * - Lemmas come from WordNet morphy (verbs: the first base form WordNet lists; nouns: wink's lemma
 *   when WordNet confirms it), not from CoreNLP's morphology.
 * - Compound nouns: the modifier is an attribute of the head ("tennis court" → (court),
 *   (court, tennis)), as the jar's parser treats compounds, even where WordNet lists the compound
 *   ("tennis_court"); this gives "tennis court" vs "basketball court" partial credit.
 * - Multi-word prepositions from a short list (next to, in front of, on top of, …) are one relation
 *   word; a verb followed by a preposition gives the relation "verb prep" (sit on).
 * - Quantity nouns ("a group of people", "a pair of scissors") are dropped: the object is the noun
 *   after "of". Numbers stay count attributes ("two women" → (woman), (woman, two)).
 * - Synonyms: the jar compares tuples through WordNet synonym sets of whole elements; cckit matches
 *   word by word (an element of several words matches one of the same length whose words match).
 * - Reference union: a reference tuple that matches one already in T(S) (exactly or by synonyms) is
 *   not added again; the jar merges the references' graphs node by node, which is close but not equal.
 * - No caching across runs, no per-category breakdown (object / attribute / relation / color /
 *   count / size F-scores); spiceDetails() gives P, R, F1 and tuple counts per image.
 * - Empty tuple sets score 0 (the jar reports NaN for an image whose candidate has no tuples).
 *
 * Speed (2-core dev machine): 1000 images × (1 candidate + 5 references) in ~0.24 s warm; the first
 * call also loads the wink model and the WordNet index (~1 s). Not in evaluate()'s default set.
 */
import type { ItsFunction, WinkMethods } from 'wink-nlp';
import { winkInstance } from '../text/wink';
import { normalizeLemma, wordnet } from '../wordnet';
import { Candidates, MetricScores, References, imageIdsOf } from './types';

/** An object node of the scene graph: its lemma and its attributes (in order, no repeats). */
export interface SceneObject {
  name: string;
  attributes: string[];
}

export interface SceneGraph {
  objects: SceneObject[];
  /** [subject index, relation, object index] into `objects`. */
  relations: [number, string, number][];
}

/** A tuple: [object], [object, attribute] or [subject, relation, object]. */
export type SpiceTuple = readonly string[];

export interface SpiceImageDetails {
  precision: number;
  recall: number;
  f1: number;
  /** |T(c)|, |T(S)| and the number of matched tuples. */
  candidateTuples: number;
  referenceTuples: number;
  matched: number;
}

// ------------------------------------------------------------------ tagging

let tagger: WinkMethods | undefined;

/** A wink-nlp instance of our own (metrics may not import src/filters/nlp.ts, a layer above). */
function nlp(): WinkMethods {
  return (tagger ??= winkInstance(['pos']));
}

interface Word {
  text: string;
  pos: string;
  /** wink's lemma, lower-cased. */
  lemma: string;
}

/** Prepositions of several words, joined into one relation word before parsing. */
const MULTI_WORD_PREPOSITIONS: readonly string[][] = [
  ['in', 'front', 'of'],
  ['on', 'top', 'of'],
  ['in', 'back', 'of'],
  ['in', 'the', 'middle', 'of'],
  ['on', 'the', 'edge', 'of'],
  ['next', 'to'],
  ['close', 'to'],
  ['out', 'of'],
  ['inside', 'of'],
  ['outside', 'of'],
  ['across', 'from'],
  ['on', 'board'],
];

/** Nouns that only count or group the noun after "of": "a group of people" is about people. */
const QUANTITY_NOUNS: ReadonlySet<string> = new Set([
  'group',
  'bunch',
  'couple',
  'pair',
  'herd',
  'flock',
  'crowd',
  'lot',
  'number',
  'pile',
  'stack',
  'row',
  'set',
  'variety',
  'lots',
  'few',
  'bunches',
  'groups',
  'couples',
  'pairs',
  'herds',
  'flocks',
  'piles',
  'stacks',
  'rows',
  'sets',
]);

/** Words that open a relative clause: the verb after them belongs to the noun before them. */
const RELATIVE_PRONOUNS: ReadonlySet<string> = new Set(['who', 'that', 'which', 'whose']);

const NOUNS: ReadonlySet<string> = new Set(['NOUN', 'PROPN']);

function tag(caption: string): Word[] {
  const instance = nlp();
  const doc = instance.readDoc(caption.toLowerCase()).tokens();
  const values = doc.out(instance.its.value) as string[];
  const tags = doc.out(instance.its.pos) as string[];
  const lemmas = doc.out(instance.its.lemma as unknown as ItsFunction<string>) as string[];
  const words: Word[] = [];
  for (let i = 0; i < values.length; i++) {
    if (tags[i] === 'PUNCT' || tags[i] === 'SYM') continue;
    words.push({ text: values[i], pos: tags[i], lemma: lemmas[i].toLowerCase() });
  }
  fixTags(words);
  return joinPrepositions(words);
}

/**
 * The tagger reads "a girl standing on …" as NOUN NOUN (as in "a tennis court"). An -ing word
 * right after a noun, followed by a preposition, determiner, number, adjective or pronoun, whose base
 * WordNet knows as a verb, is a participle: retag it VERB.
 */
function fixTags(words: Word[]): void {
  for (let i = 1; i < words.length; i++) {
    const w = words[i];
    if (w.pos !== 'NOUN' || !w.text.endsWith('ing') || !NOUNS.has(words[i - 1].pos)) continue;
    const next = words[i + 1];
    if (next !== undefined && !['ADP', 'DET', 'NUM', 'ADJ', 'PRON', 'ADV', 'PART'].includes(next.pos)) continue;
    if (wordnet().lemmaBaseForms(w.text, 'v').length > 0) w.pos = 'VERB';
  }
}

function joinPrepositions(words: Word[]): Word[] {
  const out: Word[] = [];
  for (let i = 0; i < words.length; i++) {
    const phrase = MULTI_WORD_PREPOSITIONS.find((p) => p.every((part, k) => words[i + k]?.text === part));
    if (phrase) {
      out.push({ text: phrase.join(' '), pos: 'ADP', lemma: phrase.join(' ') });
      i += phrase.length - 1;
    } else {
      out.push(words[i]);
    }
  }
  return out;
}

// ------------------------------------------------------------------ lemmas

const nounLemmas = new Map<string, string>();
const verbLemmas = new Map<string, string>();

/** A noun's lemma: wink's when WordNet lists it as a base form, else WordNet's first base form. */
function nounLemma(word: Word): string {
  const key = `${word.text} ${word.lemma}`;
  let lemma = nounLemmas.get(key);
  if (lemma === undefined) {
    const bases = wordnet().lemmaBaseForms(word.text, 'n');
    lemma = bases.includes(word.lemma) ? word.lemma : (bases[0] ?? word.lemma);
    nounLemmas.set(key, lemma);
  }
  return lemma;
}

/**
 * A verb's lemma: WordNet's first base form ("riding" → ride, where wink says "rid"); for doubled
 * consonants morphy's rules miss ("sitting"), the exception list usually has them; else wink's.
 */
function verbLemma(word: Word): string {
  let lemma = verbLemmas.get(word.text);
  if (lemma === undefined) {
    lemma = wordnet().lemmaBaseForms(word.text, 'v')[0] ?? word.lemma;
    verbLemmas.set(word.text, lemma);
  }
  return lemma;
}

// ------------------------------------------------------------------ parsing

interface NounPhrase {
  node: number;
  /** Index of the first word after the phrase. */
  end: number;
}

class GraphBuilder {
  readonly objects: SceneObject[] = [];
  readonly relations: [number, string, number][] = [];

  addObject(name: string): number {
    this.objects.push({ name, attributes: [] });
    return this.objects.length - 1;
  }

  addAttribute(node: number, attribute: string): void {
    const list = this.objects[node].attributes;
    if (attribute !== '' && !list.includes(attribute) && attribute !== this.objects[node].name) list.push(attribute);
  }

  addRelation(subject: number, relation: string, object: number): void {
    if (subject === object) return;
    if (!this.relations.some(([s, r, o]) => s === subject && r === relation && o === object)) this.relations.push([subject, relation, object]);
  }
}

/**
 * One noun phrase from words[i]: determiners are dropped; adjectives, numbers and (compound)
 * nouns before the head are its attributes ("two white dogs" → dog: two, white; "tennis court" →
 * court: tennis); adjectives joined by "and" ("red and white bus") all count. The head is the last
 * noun of the run. Returns undefined when no noun heads the run (a predicative "is brown").
 */
function nounPhrase(words: readonly Word[], i: number, graph: GraphBuilder): NounPhrase | undefined {
  let j = i;
  let head = -1;
  while (j < words.length) {
    const w = words[j];
    if (w.pos === 'DET' || w.pos === 'NUM' || w.pos === 'ADJ') {
      if (head >= 0) break; // a modifier after a noun starts something else
    } else if (NOUNS.has(w.pos)) {
      head = j;
    } else if (w.pos === 'ADV' && words[j + 1]?.pos === 'ADJ' && head < 0) {
      // "a very large dog": the adverb qualifies the adjective; dropped
    } else if (w.pos === 'CCONJ' && head < 0 && words[j - 1]?.pos === 'ADJ' && words[j + 1]?.pos === 'ADJ') {
      // "red and white": both adjectives modify the head
    } else {
      break;
    }
    // a noun followed by a non-noun ends the phrase
    if (head === j && !NOUNS.has(words[j + 1]?.pos ?? '')) break;
    j++;
  }
  if (head < 0) return undefined;
  const node = graph.addObject(nounLemma(words[head]));
  for (let k = i; k < head; k++) {
    const w = words[k];
    if (w.pos === 'ADJ' || w.pos === 'NUM') graph.addAttribute(node, w.text);
    else if (NOUNS.has(w.pos)) graph.addAttribute(node, nounLemma(w));
  }
  return { node, end: head + 1 };
}

/**
 * A group of noun phrases joined by "and"/"or" ("a dog and a cat"), quantity nouns skipped
 * ("a group of people" → people). Every phrase is an object; relations to or from the group apply
 * to each member.
 */
function nounGroup(words: readonly Word[], i: number, graph: GraphBuilder): { nodes: number[]; end: number } | undefined {
  const nodes: number[] = [];
  let at = i;
  for (;;) {
    const start = skipQuantity(words, at);
    const phrase = nounPhrase(words, start, graph);
    if (!phrase) break;
    nodes.push(phrase.node);
    at = phrase.end;
    if (words[at]?.pos === 'CCONJ' && startsNounPhrase(words, at + 1)) {
      at++;
      continue;
    }
    break;
  }
  return nodes.length === 0 ? undefined : { nodes, end: at };
}

/** Index after "a group of" when words[i..] is a quantity phrase; i otherwise. */
function skipQuantity(words: readonly Word[], i: number): number {
  let k = i;
  while (k < words.length && (words[k].pos === 'DET' || words[k].pos === 'ADJ' || words[k].pos === 'NUM')) k++;
  if (words[k] && QUANTITY_NOUNS.has(words[k].text) && words[k + 1]?.text === 'of' && startsNounPhrase(words, k + 2)) return k + 2;
  return i;
}

function startsNounPhrase(words: readonly Word[], i: number): boolean {
  for (let k = i; k < words.length; k++) {
    const pos = words[k].pos;
    if (NOUNS.has(pos)) return true;
    if (!['DET', 'NUM', 'ADJ', 'ADV', 'CCONJ'].includes(pos)) return false;
  }
  return false;
}

interface PendingVerb {
  lemma: string;
  subjects: number[];
  /** Got a direct object or a prepositional object: not an attribute of the subject. */
  hasArgument: boolean;
}

/**
 * The rule-based parse. One pass over the words with a little state:
 * - noun phrases become objects (nounGroup);
 * - a clause's first noun group is its subject; a verb's subject is the clause subject, or the noun
 *   before "who/that/which";
 * - verb + noun group → (subject, verb, object): "a man riding a horse" → (man, ride, horse);
 * - verb + preposition + noun group → (subject, "verb prep", object): (cat, sit on, bed);
 * - a verb with neither is an attribute of its subject: "a girl standing" → (girl, stand);
 * - otherwise preposition + noun group → (the noun group before it, prep, object): "a man on a
 *   couch" → (man, on, couch); after a copula the anchor is the subject ("the cat is on a bed");
 * - copula + adjective(s) → attributes of the subject: "the dog is brown" → (dog, brown);
 * - "X 's Y" → (X, have, Y).
 */
export function parseSceneGraph(caption: string): SceneGraph {
  const words = tag(caption);
  const graph = new GraphBuilder();
  let subject: number[] | undefined;
  let last: number[] | undefined;
  let verb: PendingVerb | undefined;
  let copula: number[] | undefined;
  let preposition: { word: string; anchors: number[]; verb?: PendingVerb } | undefined;
  let owner: number[] | undefined;

  const closeVerb = (): void => {
    if (verb && !verb.hasArgument) for (const s of verb.subjects) graph.addAttribute(s, verb.lemma);
    verb = undefined;
  };
  const relate = (from: number[], relation: string, to: number[]): void => {
    for (const a of from) for (const b of to) graph.addRelation(a, relation, b);
  };

  let i = 0;
  while (i < words.length) {
    const w = words[i];
    const group = NOUNS.has(w.pos) || ['DET', 'NUM', 'ADJ', 'ADV'].includes(w.pos) ? nounGroup(words, i, graph) : undefined;
    if (group) {
      const nodes = group.nodes;
      if (preposition) {
        if (preposition.verb) {
          relate(preposition.anchors, `${preposition.verb.lemma} ${preposition.word}`, nodes);
          preposition.verb.hasArgument = true;
        } else {
          relate(preposition.anchors, preposition.word, nodes);
        }
        preposition = undefined;
      } else if (owner) {
        relate(owner, 'have', nodes);
        // "a man 's hand holding a phone": the possessed noun takes the owner's place as subject
        if (subject === owner) subject = nodes;
        owner = undefined;
      } else if (verb && !verb.hasArgument) {
        relate(verb.subjects, verb.lemma, nodes);
        verb.hasArgument = true;
      } else if (copula) {
        // "the man is a chef": the predicate noun is an object of its own, no tuple links them
      } else if (!subject || verb) {
        closeVerb();
        subject = nodes;
      }
      last = nodes;
      i = group.end;
      continue;
    }
    if (w.pos === 'VERB') {
      closeVerb();
      preposition = undefined;
      copula = undefined;
      const subjects = subject ?? last;
      if (subjects) verb = { lemma: verbLemma(w), subjects, hasArgument: false };
    } else if (w.pos === 'AUX') {
      if (w.lemma === 'be' && !verb) copula = subject ?? last;
    } else if (w.pos === 'ADP' || (w.pos === 'PART' && w.text === 'to' && verb)) {
      if (verb && !verb.hasArgument) preposition = { word: w.text, anchors: verb.subjects, verb };
      else if (copula) preposition = { word: w.text, anchors: copula };
      else if (last) preposition = { word: w.text, anchors: last };
    } else if (w.pos === 'ADJ' && !preposition) {
      // an adjective that heads no noun phrase: predicative ("is brown", "looks happy")
      const target = copula ?? (verb && !verb.hasArgument ? verb.subjects : undefined) ?? last;
      if (target) for (const node of target) graph.addAttribute(node, w.text);
    } else if (w.pos === 'PART' && (w.text === "'s" || w.text === "'")) {
      owner = last;
    } else if (w.pos === 'PRON' && RELATIVE_PRONOUNS.has(w.text)) {
      closeVerb();
      copula = undefined;
      subject = last;
    } else if (w.pos === 'SCONJ') {
      closeVerb();
    }
    i++;
  }
  closeVerb();
  return { objects: graph.objects, relations: graph.relations };
}

/** The graph's tuple set (no repeats), objects first, then attributes, then relations. */
export function sceneGraphTuples(graph: SceneGraph): SpiceTuple[] {
  const seen = new Set<string>();
  const out: SpiceTuple[] = [];
  const add = (tuple: SpiceTuple): void => {
    const key = tuple.join('\u0000');
    if (!seen.has(key)) {
      seen.add(key);
      out.push(tuple);
    }
  };
  for (const o of graph.objects) add([o.name]);
  for (const o of graph.objects) for (const a of o.attributes) add([o.name, a]);
  for (const [s, r, o] of graph.relations) add([graph.objects[s].name, r, graph.objects[o].name]);
  return out;
}

/** Tuples of a caption: sceneGraphTuples(parseSceneGraph(caption)). */
export function captionTuples(caption: string): SpiceTuple[] {
  return sceneGraphTuples(parseSceneGraph(caption));
}

// ------------------------------------------------------------------ matching

const synsetCache = new Map<string, ReadonlySet<string>>();

function synsets(word: string): ReadonlySet<string> {
  let ids = synsetCache.get(word);
  if (ids === undefined) {
    ids = new Set(wordnet().synsetsOf(normalizeLemma(word)));
    synsetCache.set(word, ids);
  }
  return ids;
}

function wordsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const sa = synsets(a);
  if (sa.size === 0) return false;
  for (const id of synsets(b)) if (sa.has(id)) return true;
  return false;
}

/** Tuple elements match: equal, or word by word equal or WordNet synonyms (same synset). */
export function elementsMatch(a: string, b: string): boolean {
  if (a === b) return true;
  const wa = a.split(' ');
  const wb = b.split(' ');
  if (wa.length !== wb.length) return false;
  return wa.every((word, k) => wordsMatch(word, wb[k]));
}

/** Two tuples match when they have the same length and every element matches. */
export function tuplesMatch(a: SpiceTuple, b: SpiceTuple): boolean {
  return a.length === b.length && a.every((element, k) => elementsMatch(element, b[k]));
}

/** T(S): the references' tuples, each left out when one matching it is already in. */
export function referenceTuples(references: readonly string[]): SpiceTuple[] {
  const union: SpiceTuple[] = [];
  for (const reference of references) {
    for (const tuple of captionTuples(reference)) if (!union.some((t) => tuplesMatch(t, tuple))) union.push(tuple);
  }
  return union;
}

/** Size of a maximum one-to-one matching of candidate tuples to reference tuples (augmenting paths). */
export function matchCount(candidate: readonly SpiceTuple[], reference: readonly SpiceTuple[]): number {
  const edges = candidate.map((c) => reference.flatMap((r, k) => (tuplesMatch(c, r) ? [k] : [])));
  const owner = new Int32Array(reference.length).fill(-1);
  const augment = (c: number, visited: Uint8Array): boolean => {
    for (const r of edges[c]) {
      if (visited[r]) continue;
      visited[r] = 1;
      if (owner[r] < 0 || augment(owner[r], visited)) {
        owner[r] = c;
        return true;
      }
    }
    return false;
  };
  let count = 0;
  for (let c = 0; c < candidate.length; c++) if (edges[c].length > 0 && augment(c, new Uint8Array(reference.length))) count++;
  return count;
}

/** P, R and F1 of one candidate caption against its references. */
export function spiceOf(candidate: string, references: readonly string[]): SpiceImageDetails {
  const c = captionTuples(candidate);
  const s = referenceTuples(references);
  const matched = matchCount(c, s);
  const precision = c.length === 0 ? 0 : matched / c.length;
  const recall = s.length === 0 ? 0 : matched / s.length;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  return { precision, recall, f1, candidateTuples: c.length, referenceTuples: s.length, matched };
}

/** Per-image P, R, F1 and tuple counts. */
export function spiceDetails(references: References, candidates: Candidates): Record<string, SpiceImageDetails> {
  const out: Record<string, SpiceImageDetails> = {};
  for (const id of imageIdsOf(references, candidates)) out[id] = spiceOf(candidates[id], references[id]);
  return out;
}

export function score(references: References, candidates: Candidates): MetricScores {
  const details = spiceDetails(references, candidates);
  const perImage: Record<string, number> = {};
  let sum = 0;
  const ids = Object.keys(details);
  for (const id of ids) {
    perImage[id] = details[id].f1;
    sum += details[id].f1;
  }
  return { SPICE: { corpus: ids.length === 0 ? 0 : sum / ids.length, perImage } };
}
