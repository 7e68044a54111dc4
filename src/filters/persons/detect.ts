/** The two scans over a caption's tokens: ordinarily cased text (capitalised runs) and noisy case (ALL CAPS, Title Case). */
import { isCommonGivenName, isGivenName } from './names';
import { Token } from './tokens';
import { isOrdinaryWord, isPersonNoun, isPlaceOnly } from './wordnet-lookups';
import {
  articleBefore,
  depictionBefore,
  initialWordInSentence,
  isPluralRole,
  namedThing,
  pluralRoleBefore,
  possessivePlace,
  sentenceEvidence,
  subjectPosition,
  verbAt,
} from './context';
import {
  accentedName,
  cueBefore,
  famousAt,
  givenNameStart,
  keepsInitialWord,
  nameEvidence,
  nameInitial,
  namesNoun,
  nonName,
  particleOpensName,
  personPhraseAt,
  personPhraseEnd,
  plausibleName,
  titledPlace,
} from './evidence';
import { CUE_WORDS, DESIGNATORS, FUNCTION_WORDS, MONTHS_AND_DAYS, NAME_SUFFIXES, PARTICLES, isRole } from './words';

/** A capitalised run the normal-case scan judged: a name, a run that could be one, or the name of a place or thing. */
interface Run {
  a: number;
  b: number;
  /** Where the capitalised run began (before a leading role or sentence-initial word was left out). */
  i: number;
  verdict: 'person' | 'maybe' | 'thing' | 'no';
  /** The span's start when it is a person (a given name may start it later than a). */
  start: number;
}

export function detectNormal(tokens: readonly Token[], given: boolean): Array<[number, number]> {
  const runs: Run[] = [];
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
      // particles before a capitalised word: "Ludwig van Beethoven", "Joost van der Heijden", "Maria de la Cruz"
      let p = j + 1;
      while (p < j + 3 && tokens[p] !== undefined && PARTICLES.has(tokens[p]!.key) && !tokens[p]!.cap && tokens[p]!.joined) p++;
      const next = tokens[p];
      if (PARTICLES.has(u.key) && next && next.joined && next.cap) {
        j = p + 1;
        continue;
      }
      break;
    }
    let a = i;
    // leading role words, titles, function words and a sentence-initial ordinary word ("Actor", "A")
    while (a < j) {
      const u = tokens[a]!;
      if (
        isRole(u.key) ||
        CUE_WORDS.has(u.key) ||
        (FUNCTION_WORDS.has(u.key) && !nameInitial(tokens, a) && !accentedName(u) && !(given && particleOpensName(tokens, a, j))) ||
        MONTHS_AND_DAYS.has(u.key) ||
        (given && a + 1 < j && isPluralRole(u.key))
      ) {
        a++;
        continue;
      }
      // "Zookeeper Tendai Moyo feeds …", "Hikers Rob Summers and …": a sentence-initial word for a kind of person
      // (WordNet, as the cue before a lower-case run) is the name's role, not its first word
      if (
        given &&
        a === i &&
        u.sentenceStart &&
        a + 2 < j &&
        !isGivenName(u.key) &&
        (isPersonNoun(u.key) || (u.key.endsWith('s') && isPersonNoun(u.key.slice(0, -1))))
      ) {
        a++;
        continue;
      }
      // "Prime Minister …", "Vice President …": an ordinary word that qualifies the title after it
      if (given && a + 2 < j && isRole(tokens[a + 1]!.key) && isOrdinaryWord(u.key) && !isGivenName(u.key)) {
        a += 2;
        continue;
      }
      if (
        a === i &&
        u.sentenceStart &&
        isOrdinaryWord(u.key) &&
        !accentedName(u) &&
        !(a + 1 < j && (keepsInitialWord(tokens, a, j, given) || (given && initialWordInSentence(tokens, a, j)))) &&
        !personPhraseAt(tokens, a, j)
      ) {
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
      // "a photo of …", "Actors …": cues that sentences give (the name lists are evidence, not a gate)
      // (one word after "a photo of" only when it is a given name: "a photo of Santorini" is a place)
      const framed =
        given &&
        !cue &&
        (depictionBefore(tokens, a) || pluralRoleBefore(tokens, a)) &&
        !namedThing(tokens, a, b) &&
        (b - a >= 2 || isGivenName(tokens[a]!.key) || isCommonGivenName(tokens[a]!.key));
      const strong = cue || framed;
      if (given && !strong && (articleBefore(tokens, a) || possessivePlace(tokens, a, b))) {
        runs.push({ a, b, i, verdict: 'thing', start: a });
      } else if (plausibleName(tokens, a, b, given, strong, true)) {
        if (strong || !given || nameEvidence(tokens, a, b) || sentenceEvidence(tokens, i, a, b))
          runs.push({ a, b, i, verdict: 'person', start: cue || !given ? a : givenNameStart(tokens, a, b) });
        else runs.push({ a, b, i, verdict: 'maybe', start: givenNameStart(tokens, a, b) });
      } else if (a === i && famousAt(tokens, a, j) && !namesNoun(tokens, j)) runs.push({ a, b: a + 1, i, verdict: 'person', start: a });
      else runs.push({ a, b, i, verdict: given && DESIGNATORS.has(tokens[b - 1]!.key) ? 'thing' : 'no', start: a });
    }
    i = j;
  }
  if (given) coordinate(tokens, runs);
  return runs.filter((r) => r.verdict === 'person').map((r): [number, number] => [r.start, r.b]);
}

/**
 * Runs joined by "and", "&" or commas share their kind: a name beside a name ("Actors X Y and Z W attend"; "X Y, Z W
 * and U V"), a chain that opens a sentence before a verb names people ("X Y and Z W dance"), and a run beside a
 * place's or thing's name is part of it ("the Victoria and Albert Museum").
 */
function coordinate(tokens: readonly Token[], runs: Run[]): void {
  const joinedTo = (r: Run, s: Run): boolean => {
    if (tokens[r.b]?.key === 'and' && !tokens[r.b]!.cap && s.i === r.b + 1) return true;
    return s.i === r.b && /^\s*[,&]\s*$/.test(tokens[s.i]!.gap);
  };
  let k = 0;
  while (k < runs.length) {
    let e = k + 1;
    while (e < runs.length && joinedTo(runs[e - 1]!, runs[e]!)) e++;
    const chain = runs.slice(k, e);
    if (chain.length > 1 && !chain.some((r) => r.verdict === 'no')) {
      if (chain.some((r) => r.verdict === 'thing')) {
        for (const r of chain) if (r.verdict === 'person' && r.b - r.a === 1) r.verdict = 'thing';
      } else if (chain.some((r) => r.verdict === 'person') || (subjectPosition(tokens, chain[0]!.i) && verbAt(tokens, chain[chain.length - 1]!.b, true))) {
        for (const r of chain) if (r.verdict === 'maybe') r.verdict = 'person';
      }
    }
    k = e;
  }
}

export function detectNoisy(tokens: readonly Token[], given: boolean): Array<[number, number]> {
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
