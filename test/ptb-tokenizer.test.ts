import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { COCO_PUNCTUATION, ptbTokenize, tokenizeCaption, tokenizeCaptions } from '../src/text/ptb-tokenizer';

interface FixtureCase {
  caption: string;
  tokens: string[];
  expected: string;
  expectedInBatch: string;
}

const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'ptb-tokenizer-cases.json'), 'utf8')) as { cases: FixtureCase[] };

/** [caption, PTB tokens (space-joined, lower-cased, before the coco filter)] */
type Case = [string, string];

function check(cases: Case[]): void {
  for (const [input, tokens] of cases) {
    assert.equal(ptbTokenize(input).join(' '), tokens, JSON.stringify(input));
  }
}

describe('ptb-tokenizer: CoreNLP 3.4.1 fixture', () => {
  it('has a sizeable fixture', () => {
    assert.ok(fixture.cases.length >= 150);
  });

  it('reproduces the PTB tokens of every fixture caption', () => {
    for (const c of fixture.cases) assert.deepEqual(ptbTokenize(c.caption), c.tokens, JSON.stringify(c.caption));
  });

  it('reproduces coco-caption output for every fixture caption alone', () => {
    for (const c of fixture.cases) assert.equal(tokenizeCaption(c.caption), c.expected, JSON.stringify(c.caption));
  });

  it('reproduces coco-caption output for all fixture captions in one call', () => {
    const input: Record<string, string[]> = {};
    fixture.cases.forEach((c, k) => {
      input[`img${k}`] = [c.caption];
    });
    const out = tokenizeCaptions(input);
    fixture.cases.forEach((c, k) => {
      assert.deepEqual(out[`img${k}`], [c.expectedInBatch], JSON.stringify(c.caption));
    });
  });
});

describe('ptb-tokenizer: rule families', () => {
  it('escapes brackets, and lower-cases the escapes (so coco keeps them)', () => {
    check([
      ['a (red) car', 'a -lrb- red -rrb- car'],
      ['[x] {y}', '-lsb- x -rsb- -lcb- y -rcb-'],
    ]);
    assert.equal(tokenizeCaption('a dog (left) [1] {2}'), 'a dog -lrb- left -rrb- -lsb- 1 -rsb- -lcb- 2 -rcb-');
  });

  it("turns double quotes into `` and '', single quotes by context", () => {
    check([
      ['he said "hi" to "Bob"', "he said `` hi '' to `` bob ''"],
      ["a 'quoted' word", "a ` quoted ' word"],
      ['“curly” and ‘single’', "`` curly '' and ` single '"],
      ['«a» "', "`` a '' ''"],
      ['the &quot;x&quot;', "the `` x ''"],
    ]);
    assert.equal(tokenizeCaption('he said "hi"'), 'he said hi');
  });

  it('splits contractions and clitics', () => {
    check([
      ["don't can't won't isn't", "do n't ca n't wo n't is n't"],
      ["it's we're I've you'll I'm he'd", "it 's we 're i 've you 'll i 'm he 'd"],
      ['it’s John’s', "it 's john 's"],
      ["the students' books", "the students ' books"],
      ["ain't", "ai n't"],
    ]);
  });

  it('splits assimilations', () => {
    check([
      ['I cannot go', 'i can not go'],
      ['gonna wanna gotta lemme gimme', 'gon na wan na got ta lem me gim me'],
      ['CANNOT', 'can not'],
      ["'Tis 'twas", "'t is 't was"],
      ['cannotx gonnas', 'cannotx gonnas'],
    ]);
  });

  it('keeps apostrophe words whole (mostly)', () => {
    check([
      ["o'clock O'Brien rock'n'roll", "o'clock o'brien rock 'n' roll"],
      ["y'all c'mon ol' ma'am", "y' all c'mon ol' ma'am"],
      ["the '90s", "the '90s"],
    ]);
  });

  it('handles abbreviations and sentence-final periods', () => {
    check([
      ['Mr. Smith met Dr. Who', 'mr. smith met dr. who'],
      ['the U.S. flag', 'the u.s. flag'],
      ['made in the U.S.', 'made in the u.s.'],
      ['fruits, etc. are here', 'fruits , etc. are here'],
      ['fruits, etc.', 'fruits , etc. .'],
      ['tools etc. The end.', 'tools etc. . the end .'],
      ['in the U.S. The end', 'in the u.s. . the end'],
      ['vitamin C. The end', 'vitamin c . the end'],
      ['a dog.', 'a dog .'],
      ['Apple Inc. and Co. Ltd.', 'apple inc. and co. ltd. .'],
      ['Ph.D. and e.g.', 'ph.d. and e.g.'],
      ['a dress.She smiles', 'a dress.she smiles'],
    ]);
    assert.equal(tokenizeCaption('fruits, etc.'), 'fruits etc.');
    assert.equal(tokenizeCaption('made in the U.S.'), 'made in the u.s.');
  });

  it('keeps numbers, prices, dates, fractions and phone numbers whole', () => {
    check([
      ['$5.50 and 3.5 and 1,000 and .5', '$ 5.50 and 3.5 and 1,000 and .5'],
      ['US$ 20 and €15 and £10 and 50¢', 'us$ 20 and $ 15 and # 10 and 50 cents'],
      ['-5 and +10', '-5 and +10'],
      ['12/25/1990 at 3:30', '12/25/1990 at 3:30'],
      ['1 1/2 cups, 3/4 and ½', '1\u00a01/2 cups , 3/4 and 1/2'],
      ['call 555-123-4567 or (555) 123-4567', 'call 555-123-4567 or -lrb-555-rrb-\u00a0123-4567'],
      ['50% and 100 %', '50 % and 100 %'],
    ]);
  });

  it('treats hyphens, dashes and ellipses as PTB does', () => {
    check([
      ['a well-known state-of-the-art x-ray', 'a well-known state-of-the-art x-ray'],
      ['a - b -- c --- d ----- e', 'a - b -- c -- d ----- e'],
      ['en–dash em—dash', 'en -- dash em -- dash'],
      ['wait... what . . . ok …', 'wait ... what ... ok ...'],
      ['pro-choice anti-war', 'pro-choice anti-war'],
    ]);
    assert.equal(tokenizeCaption('wait... a - b -- c'), 'wait a b c');
  });

  it('keeps URLs, e-mails, file names, hashtags and handles whole', () => {
    check([
      ['see http://www.example.com/a?b=1 now', 'see http://www.example.com/a?b=1 now'],
      ['www.example.org and example.com', 'www.example.org and example.com'],
      ['mail john.doe@example.com!', 'mail john.doe@example.com!'],
      ['photo.jpg and report.PDF.', 'photo.jpg and report.pdf .'],
      ['#travel @user_name # @', '#travel @user_name # @'],
    ]);
  });

  it('handles symbols, slashes, ampersands and smileys', () => {
    check([
      ['R&B AT&T cats & dogs &amp; mice', 'r&b at&t cats & dogs & mice'],
      ['and/or 24/7 a / b', 'and/or 24/7 a / b'],
      ['C++ C# F#', 'c++ c# f#'],
      ['smile :) wink ;) sad :( x', 'smile :-rrb- wink ;-rrb- sad :-lrb- x'],
      ['happy ^_^ x', 'happy ^_^ x'],
      ['a * b = c ~ d', 'a * b = c ~ d'],
      ['30°C', '30 ° c'],
    ]);
  });

  it('deletes characters it cannot tokenise (emoji) and keeps other scripts', () => {
    check([
      ['sunset 🌅 at the beach 🏖️', 'sunset at the beach'],
      ['café São Paulo naïve', 'café são paulo naïve'],
      ['Москва and 東京タワー', 'москва and 東京タワー'],
      ['I ❤ NY ★', 'i ❤ ny ★'],
    ]);
  });

  it('treats NBSP and other spaces as whitespace', () => {
    check([
      ['a\u00a0b\tc  d\u2003e', 'a b c d e'],
      ['soft\u00adhyphen zero\u200bwidth', 'softhyphen zero width'],
      ['  padded  ', 'padded'],
      ['', ''],
    ]);
  });
});

/**
 * Known differences from CoreNLP 3.4.1: inputs where cckit's clean-room
 * tokenizer deliberately gives another result. The cckit output is pinned so
 * a change is noticed; the comment says what the Java tool gives.
 */
describe('ptb-tokenizer: known differences from the Java tool', () => {
  it("a clitic after n't at the very end of the input", () => {
    // Java: "should n't ` ve" (only at end of input; with text after it,
    // as in the fixture's "Shouldn't've said that.", Java also gives 've).
    check([["shouldn't've", "should n't 've"]]);
  });
});

describe('ptb-tokenizer: <PERSON> placeholder (cckit deviation)', () => {
  it('keeps <PERSON> as one upper-case token whatever its case', () => {
    assert.deepEqual(ptbTokenize('<PERSON> and <person> meet <Person>'), ['<PERSON>', 'and', '<PERSON>', 'meet', '<PERSON>']);
    assert.equal(tokenizeCaption("actor <PERSON> (left) with <person>'s dog."), "actor <PERSON> -lrb- left -rrb- with <PERSON> 's dog");
    assert.equal(tokenizeCaption('photo by<PERSON>/getty'), 'photo by <PERSON> / getty');
  });

  it('lower-cases other tag-like tokens as the Java tool does', () => {
    assert.deepEqual(ptbTokenize('<B>bold</B>'), ['<b>', 'bold', '</b>']);
  });
});

describe('ptb-tokenizer: coco-caption wrapper', () => {
  it('exports the coco punctuation list', () => {
    assert.deepEqual(
      [...COCO_PUNCTUATION].sort(),
      ["''", "'", '``', '`', '-LRB-', '-RRB-', '-LCB-', '-RCB-', '.', '?', '!', ',', ':', '-', '--', '...', ';'].sort(),
    );
  });

  it('replaces newlines inside a caption with spaces', () => {
    assert.equal(tokenizeCaption('a dog\non a couch.'), 'a dog on a couch');
    assert.deepEqual(tokenizeCaptions({ 1: ['a dog\non a couch.', 'two cats'] }), { 1: ['a dog on a couch', 'two cats'] });
  });

  it('keeps the image-id shape and caption order', () => {
    const out = tokenizeCaptions({ '42': ['A Man, riding.', 'Two dogs!'], '7': [], x: ["It's (big)"] });
    assert.deepEqual(out, { '7': [], '42': ['a man riding', 'two dogs'], x: ["it 's -lrb- big -rrb-"] });
  });

  it('lets each caption see the start of the next one, as the Java run does', () => {
    // "C." before a line starting "The " is read as a sentence end; a smiley
    // needs a following character, which the line break provides.
    const out = tokenizeCaptions({ a: ['vitamin C.', 'The dog :)', 'the end :)'] });
    assert.deepEqual(out, { a: ['vitamin c', 'the dog :-rrb-', 'the end -rrb-'] });
    assert.equal(tokenizeCaption('vitamin C.'), 'vitamin c.');
  });
});

interface OracleCase {
  caption: string;
  expected: string;
}

function loadOracle(file: string): OracleCase[] {
  return (JSON.parse(readFileSync(join(__dirname, 'fixtures', file), 'utf8')) as { cases: OracleCase[] }).cases;
}

describe('ptb-tokenizer: oracle data from the Java tool', () => {
  // 1,823 realistic captions (the project's nocaps example), each tokenised
  // alone by coco-caption's Java tokenizer: must match exactly.
  it('reproduces every nocaps example caption exactly', () => {
    const cases = loadOracle('ptb-tokenizer-nocaps-example.json');
    assert.equal(cases.length, 1823);
    for (const c of cases) assert.equal(tokenizeCaption(c.caption), c.expected, JSON.stringify(c.caption));
  });

  // 2,000 random lines of adversarial "symbol soup" (mixtures of URLs, e-mails,
  // abbreviations, emoticons, entities, non-Latin scripts, glued punctuation).
  // Full agreement is not a goal; this guards the agreement reached so far.
  // The documented cckit deviation (`<PERSON>` kept upper-case) is not counted.
  it('keeps its agreement on a fuzz sample (at least 1,405 of 2,000 exact)', () => {
    const cases = loadOracle('ptb-tokenizer-fuzz-sample.json');
    assert.equal(cases.length, 2000);
    let exact = 0;
    for (const c of cases) {
      if (tokenizeCaption(c.caption).replace(/<PERSON>/g, '<person>') === c.expected) exact++;
    }
    assert.ok(exact >= 1405, `only ${exact} of 2000 agree`);
  });
});
