/**
 * The <PERSON> detector (src/filters/persons.ts) on real human-written captions.
 *
 * test/fixtures/persons-real.tsv holds 1,208 captions from two Debian packages (tuxpaint-stamps-default's stamp
 * descriptions, openclipart-svg's titles and descriptions; drawn by scripts/persons-sample.ts), labelled by hand:
 * `source<TAB>text<TAB>persons`, persons being the JSON list of the names in the text, left to right, exactly as
 * written. A name's span is its first occurrence on word boundaries after the previous name. The file's header has
 * the annotation guide.
 *
 * Span level: a detected span counts when it is exactly a labelled span. Token level: a word (a run of letters,
 * marks and digits) is a person word when it overlaps a span, labelled or detected.
 *
 * 30% of the lines, chosen by FNV-1a hash of the text, are held out: the detector's rules were developed on the
 * other 70%, then the held-out errors were read once (docs/filters.md, "Person names", has the numbers before
 * and after). Before this work (the detector of commit 597039a) the sample gave span P 0.399 R 0.701, token
 * P 0.481 R 0.844 (all lines).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { findPersons, replacePersons } from '../src/filters/persons';
import { PERSON_TOKEN } from '../src/text/tokens';
import { FIXTURES, Labelled, heldOut, readFixture, score } from './persons-fixture';

const rows = readFixture(FIXTURES.real, 3);

test('persons-real.tsv: 1,208 labelled lines from the two Debian packages, 107 names, 30% held out by hash', () => {
  assert.equal(rows.length, 1208);
  assert.ok(rows.every((r) => /^(tuxpaint:[^\t]+\.txt|openclipart:[^\t]+\.svg#(title|description))$/.test(r.source)));
  assert.equal(
    rows.reduce((n, r) => n + r.spans.length, 0),
    107,
  );
  const held = rows.filter((r) => heldOut(r.text)).length;
  assert.ok(held > 0.27 * rows.length && held < 0.33 * rows.length, `${held} held out`);
});

for (const [part, select, spanRecallFloor] of [
  ['all lines', (_: Labelled) => true, 0.95],
  ['held-out lines', (r: Labelled) => heldOut(r.text), 0.9],
  ['in-sample lines', (r: Labelled) => !heldOut(r.text), 0.95],
] as const) {
  test(`findPersons on real captions (${part}): precision ≥ 0.95 (span and token level), recall ≥ 0.95 (token level)`, (t) => {
    const s = score(rows.filter(select));
    const f = (x: number): string => x.toFixed(3);
    t.diagnostic(`${s.lines} lines, ${s.spans} names: span P ${f(s.spanPrecision)} R ${f(s.spanRecall)}; token P ${f(s.tokenPrecision)} R ${f(s.tokenRecall)}`);
    if (s.missed.length > 0) t.diagnostic(`missed: ${s.missed.join('; ')}`);
    if (s.wrong.length > 0) t.diagnostic(`wrong: ${s.wrong.join('; ')}`);
    assert.ok(s.spanPrecision >= 0.95, `span precision ${f(s.spanPrecision)}; wrong: ${s.wrong.join('; ')}`);
    assert.ok(s.tokenPrecision >= 0.95, `token precision ${f(s.tokenPrecision)}`);
    assert.ok(s.tokenRecall >= 0.95, `token recall ${f(s.tokenRecall)}`);
    // Span recall: 0.953 on all lines, 0.963 in-sample, 0.92 on the held-out ones (23 of 25; unchanged by the two
    // rules that lifted the in-sample part, an undotted letter opening a title and a given name starting a name
    // after a title's word). The misses are an author's surname after an Italian word in his titles ("Coccinella
    // Rollandin", "Pinzatrice Rollandin", "Rilievo Rollandin") and names no list or dictionary has ("Future
    // Beckham", "For Luba"); no rule for any English alt-text tells these from "Stara Ksiega" or "Gattina Cat".
    assert.ok(s.spanRecall >= spanRecallFloor, `span recall ${f(s.spanRecall)}; missed: ${s.missed.join('; ')}`);
  });
}

test('findPersons: the real captions the detector got right before', () => {
  const names = (caption: string): string[] => findPersons(caption).map((p) => p.text);
  assert.deepEqual(names('Clipart by Nicu Buculei - bee'), ['Nicu Buculei']);
  assert.deepEqual(names('A picture of John Coltrane converted to vector grpahics in Inkscape.'), ['John Coltrane']);
  assert.deepEqual(names('John Coltrane Portrait'), ['John Coltrane']);
  assert.deepEqual(names('Historic -USA Betsy Ross'), ['Betsy Ross']);
});

test('findPersons: places, vehicles and heraldry are not persons', () => {
  assert.deepEqual(findPersons('Brunei Darussalam'), []);
  assert.equal(
    replacePersons('A tough APC like this M-3 Bradley Fighting Vehicle gets you to battle, and then it joins the action!'),
    'A tough APC like this M-3 Bradley Fighting Vehicle gets you to battle, and then it joins the action!',
  );
  assert.equal(replacePersons('Saxony Coat of Arms'), 'Saxony Coat of Arms');
  assert.deepEqual(findPersons('Saint Lucia'), []);
  assert.deepEqual(findPersons('Canada - Prince Edward Island'), []);
  assert.deepEqual(findPersons('Florence Flag'), []);
  assert.deepEqual(findPersons('A US “Sacagawea” dollar ($1.00).'), []);
  // words WordNet does not know are not enough on their own: misspellings, other languages
  for (const caption of ['Gattina Cat', 'Volleball Net', 'Stara Ksiega', 'Islas Canarias', 'France - Languedoc Roussillon'])
    assert.deepEqual(findPersons(caption), [], caption);
});

test('findPersons: names after "by" with initials, designator surnames and place-like surnames', () => {
  assert.equal(replacePersons('Clipart by Steve Hall - United States - Alabama'), `Clipart by ${PERSON_TOKEN} - United States - Alabama`);
  assert.equal(replacePersons('Clipart by Rob Davenport - United States - Ohio'), `Clipart by ${PERSON_TOKEN} - United States - Ohio`);
  assert.equal(replacePersons('Clipart by Jon A. Cruz - United States - California'), `Clipart by ${PERSON_TOKEN} - United States - California`);
  assert.equal(replacePersons('Clipart by Pedro A. Gracia Fajardo - Spain'), `Clipart by ${PERSON_TOKEN} - Spain`);
  assert.equal(replacePersons('Clipart by Jose Fco. Hevia - Spain - Asturias'), `Clipart by ${PERSON_TOKEN} - Spain - Asturias`);
  assert.deepEqual(
    findPersons('Reference: "A Complete Guide to Heraldry" by A.C. Fox-Davies and J.P. Brook-Little (1969 edition).').map((p) => p.text),
    ['A.C. Fox-Davies', 'J.P. Brook-Little'],
  );
});

test('findPersons: suffixes, possessives, people WordNet knows', () => {
  const names = (caption: string): string[] => findPersons(caption).map((p) => p.text);
  assert.deepEqual(names('Martin Luther King Jr.'), ['Martin Luther King Jr']);
  assert.deepEqual(names("Jonathon's Duck"), ['Jonathon']);
  assert.deepEqual(names('Workstation based on "Andy Fitzsimon\'s Computer".'), ['Andy Fitzsimon']);
  assert.deepEqual(names("Van Gogh 's Sun Flower"), ['Van Gogh']);
  assert.deepEqual(names('Santa Claus.'), ['Santa Claus']);
  assert.deepEqual(names('Bach Cartoon Bust'), ['Bach']);
  assert.deepEqual(names('a portrait of Beethoven'), ['Beethoven']);
  assert.deepEqual(names('Carnegie Library Building'), []);
  assert.deepEqual(names('Architetto Francesco Rollandin'), ['Francesco Rollandin']);
});

test('findPersons: where a name starts in a title-case run', () => {
  const names = (caption: string): string[] => findPersons(caption).map((p) => p.text);
  // a capital letter without a full stop opening a title labels it; an initial has its full stop
  assert.deepEqual(names('C Rollandin Francesco'), ['Rollandin Francesco']);
  assert.deepEqual(names('Clipart by Jon A. Cruz - United States - California'), ['Jon A. Cruz']);
  assert.deepEqual(names('No U Turn Sign'), []);
  // a given name and a surname start the name; the title's word before them is not part of it
  assert.deepEqual(names('Bibliografia Francesco Rollandin'), ['Francesco Rollandin']);
  // but after a cue the whole run is the name, and a word before the given name that is a name part stays
  assert.deepEqual(names('Clipart by Celso Emilio Ferreiro - Anarchist'), ['Celso Emilio Ferreiro']);
  assert.deepEqual(names('A photo of Mary Ann Smith at home'), ['Mary Ann Smith']);
  assert.deepEqual(names('Lee Harvey Oswald'), ['Lee Harvey Oswald']);
  // moving the start never makes a name of a run that was none ("Christian" is a given name)
  assert.deepEqual(names('Trefoil (Architectural El;ement, also a Trinitarian Christian Symbol)'), []);
});
