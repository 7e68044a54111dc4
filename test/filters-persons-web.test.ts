/**
 * The <PERSON> detector (src/filters/persons.ts) on web-style alt-text sentences: test/fixtures/persons-web.tsv, 428
 * sentences written and labelled by hand for cckit (issue #47), 41% with person names that are mostly in no list the
 * detector uses, 26% naming places, organisations, brands and events that must stay (the fourth column). Scored as
 * persons-real.tsv is (test/persons-fixture.ts); 30% of the lines, by FNV-1a hash of the text, are held out: the
 * sentence cues (persons/context.ts) were developed on the other 70% and the held-out part was scored once at the end.
 *
 * Before the sentence cues: span P 0.898 R 0.458, places untouched 0.944 (all lines; docs/filters.md, "Person names").
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';

import { findPersons, replacePersons } from '../src/filters/persons';
import { PERSON_TOKEN } from '../src/text/tokens';
import { FIXTURES, Labelled, formatScores, heldOut, readFixture, score } from './persons-fixture';

const rows = readFixture(FIXTURES.web, 4);
const real = readFixture(FIXTURES.real, 3);
const names = (caption: string): string[] => findPersons(caption).map((p) => p.text);

test('persons-web.tsv: 428 labelled sentences, about 40% with names, 30% held out by hash', () => {
  assert.equal(rows.length, 428);
  assert.ok(rows.every((r, k) => r.source === `web-style:${String(k + 1).padStart(3, '0')}`));
  const withNames = rows.filter((r) => r.spans.length > 0).length;
  assert.ok(withNames > 0.35 * rows.length && withNames < 0.45 * rows.length, `${withNames} lines with names`);
  assert.ok(rows.filter((r) => r.places.length > 0).length >= 0.25 * rows.length);
  const held = rows.filter((r) => heldOut(r.text)).length;
  assert.ok(held > 0.27 * rows.length && held < 0.33 * rows.length, `${held} held out`);
});

for (const [part, select] of [
  ['all lines', (_: Labelled) => true],
  ['held-out lines', (r: Labelled) => heldOut(r.text)],
  ['in-sample lines', (r: Labelled) => !heldOut(r.text)],
] as const) {
  test(`findPersons on web-style sentences (${part}): span precision and recall ≥ 0.95, places untouched ≥ 0.98`, (t) => {
    const s = score(rows.filter(select));
    const f = (x: number): string => x.toFixed(3);
    t.diagnostic(formatScores(s));
    if (s.missed.length > 0) t.diagnostic(`missed: ${s.missed.join('; ')}`);
    if (s.wrong.length > 0) t.diagnostic(`wrong: ${s.wrong.join('; ')}`);
    assert.ok(s.spanPrecision >= 0.95, `span precision ${f(s.spanPrecision)}; wrong: ${s.wrong.join('; ')}`);
    assert.ok(s.spanRecall >= 0.95, `span recall ${f(s.spanRecall)}; missed: ${s.missed.join('; ')}`);
    assert.ok(s.placesUntouched >= 0.98, `places untouched ${f(s.placesUntouched)}; touched: ${s.touched.join('; ')}`);
  });
}

test('the sentence cues leave the titles of persons-real.tsv as they were (all lines: span P 102/104, R 102/107)', () => {
  const s = score(real);
  assert.ok(s.spanPrecision >= 102 / 104 - 1e-9 && s.spanRecall >= 102 / 107 - 1e-9, formatScores(s));
  assert.ok(score(real.filter((r) => heldOut(r.text))).spanPrecision >= 0.95);
});

test('findPersons: a capitalised pair that opens a sentence or a clause before a verb', () => {
  assert.deepEqual(names('Quillon Ashgrove repairs a fishing boat.'), ['Quillon Ashgrove']);
  assert.deepEqual(names('Berenike Stavrakou was photographed at the airport.'), ['Berenike Stavrakou']);
  assert.deepEqual(names('Ximena Urquidi holding a basket of apples'), ['Ximena Urquidi']);
  assert.deepEqual(names('the crowd cheers as Odalys Verancourt crosses the line'), ['Odalys Verancourt']);
  assert.deepEqual(names('Tavish Montcrieff and his wife arrive at the party.'), ['Tavish Montcrieff']);
  assert.deepEqual(names('The winner, Quillon Ashgrove, holds the cup.'), ['Quillon Ashgrove']);
  // but not a thing named after a person, a team, a river or a foreign place's name
  assert.deepEqual(names('Tamerlane Chess is an old game.'), []);
  assert.deepEqual(names('Bayern Munich fans sing before the match.'), []);
  assert.deepEqual(names('Rio Grande flows south.'), []);
  assert.deepEqual(names('Sagrada Familia rises above the city.'), []);
  assert.deepEqual(names('Golden Retriever puppies play in the garden.'), []);
});

test('findPersons: after "a photo of", "portrait of" and plural roles', () => {
  assert.deepEqual(names('a photo of Wynfrith Calloway with her sister'), ['Wynfrith Calloway']);
  assert.deepEqual(names('black and white portrait of Oriel Fox'), ['Oriel Fox']);
  assert.deepEqual(names('Dancers Quillon Ashgrove and Berenike Stavrakou on stage'), ['Quillon Ashgrove', 'Berenike Stavrakou']);
  // one unknown word after "a photo of" is as likely a place; places and designators stay
  assert.deepEqual(names('a photo of Santorini at sunset'), []);
  assert.deepEqual(names('a photo of Notre Dame at night'), []);
  assert.deepEqual(names('a picture of Lake Garda'), []);
  assert.equal(replacePersons('Prime Minister Berenike Stavrakou addresses parliament.'), `Prime Minister ${PERSON_TOKEN} addresses parliament.`);
});

test('findPersons: coordination, possessives, objects; "the" and possessive places name things', () => {
  assert.deepEqual(names('Quillon Ashgrove, Odalys Verancourt and Berenike Stavrakou attend the ceremony'), [
    'Quillon Ashgrove',
    'Odalys Verancourt',
    'Berenike Stavrakou',
  ]);
  assert.deepEqual(names('Quillon Ashgrove and Odalys Verancourt dance at the party.'), ['Quillon Ashgrove', 'Odalys Verancourt']);
  assert.deepEqual(names("Berenike Stavrakou's new album cover"), ['Berenike Stavrakou']);
  assert.deepEqual(names('a young boy hugs Quillon Ashgrove after the show'), ['Quillon Ashgrove']);
  assert.deepEqual(names('a man talks with Odalys Verancourt in a cafe'), ['Odalys Verancourt']);
  assert.deepEqual(names('Real Madrid players train at the Santiago Bernabéu.'), []);
  assert.deepEqual(names('A lighthouse on Martha’s Vineyard at sunset.'), []);
  assert.deepEqual(names('Visitors admire the dresses at the Victoria and Albert Museum.'), []);
  assert.deepEqual(names('Visitors explore Machu Picchu.'), []);
});

test('findPersons: particle pairs, occupations WordNet knows, accented and particle given names, ages, "at the …"', () => {
  // a sequence of particles inside a name
  assert.deepEqual(names('Joost van der Heijden repairs an old wooden boat.'), ['Joost van der Heijden']);
  assert.deepEqual(names('Maria de la Cruz sings on stage.'), ['Maria de la Cruz']);
  // a lower-case noun for a kind of person before the name (WordNet: its senses are mostly people's)
  assert.deepEqual(names('fisherman Quillon Ashgrove mends his nets at dawn'), ['Quillon Ashgrove']);
  assert.deepEqual(names('a fan Quillon Ashgrove'), []);
  // a sentence-initial name before "at the …" or "during …", no verb, when WordNet knows none of its words
  assert.deepEqual(names('Quillon Ashgrove-Verancourt at the finish of the race'), ['Quillon Ashgrove-Verancourt']);
  assert.deepEqual(names('Machu Picchu at the sunset'), []);
  // an age between commas after a subject
  assert.deepEqual(names('Al Breck, 82, still rows across the loch every morning'), ['Al Breck']);
  // an accented given name whose folded form is a function word; a capitalised particle opening a subject
  assert.deepEqual(names('Pham Thi Mai and Lê Quang Huy at their restaurant in Hanoi'), ['Pham Thi Mai', 'Lê Quang Huy']);
  assert.deepEqual(names('children listen as Della Baker reads aloud'), ['Della Baker']);
  // a peak is a place
  assert.deepEqual(names('Hong Kong skyline at night from Victoria Peak'), []);
});

test('findPersons: a sentence-initial word for a kind of person is the role, not the name', () => {
  assert.deepEqual(names('Farmer Quillon Ashgrove herds sheep across a hillside'), ['Quillon Ashgrove']);
  assert.deepEqual(names('Hikers Quillon Ashgrove and Odalys Verancourt reach the summit'), ['Quillon Ashgrove', 'Odalys Verancourt']);
  // a given name that is also a word stays the name's first word
  assert.deepEqual(names('Grace Ashgrove feeds a baby giraffe'), ['Grace Ashgrove']);
});
