/**
 * Prints the <PERSON> detector's scores (src/filters/persons.ts) on the labelled fixtures: test/fixtures/persons-real.tsv
 * (titles and descriptions) and test/fixtures/persons-web.tsv (web-style alt-text sentences). Span and token precision
 * and recall, and on persons-web.tsv the share of labelled places no detected span touches (test/persons-fixture.ts).
 *
 *   node --import tsx scripts/persons-score.ts [--in-sample | --held-out | --all] [--errors] [--fixture real|web]
 *
 * `--in-sample` (the default) scores only the 70% of lines developed on; `--held-out` the 30% held out by hash of the
 * text (read them once, at the end of a change); `--all` both and every line. `--errors` lists the missed and wrong
 * names and the touched places of the lines scored. `--fixture web-blind` scores test/fixtures/persons-web-blind.tsv,
 * 200 sentences written after the web cues by an annotator who never ran the detector: a blind test of a change
 * (since used for development); `--fixture web-blind2` the second such set (also used since), `--fixture web-blind3`
 * the third, the blind test of the detector as it stands.
 */
import { FIXTURES, formatScores, heldOut, readFixture, score } from '../test/persons-fixture';

function main(argv: readonly string[]): void {
  const part = argv.includes('--held-out') ? 'held-out' : argv.includes('--all') ? 'all' : 'in-sample';
  const errors = argv.includes('--errors');
  const only = argv.includes('--fixture') ? argv[argv.indexOf('--fixture') + 1] : undefined;
  for (const [name, file, columns] of [
    ['real', FIXTURES.real, 3],
    ['web', FIXTURES.web, 4],
    ['web-blind', FIXTURES.blind, 4],
    ['web-blind2', FIXTURES.blind2, 4],
    ['web-blind3', FIXTURES.blind3, 4],
  ] as const) {
    if (only !== undefined && only !== name) continue;
    // a blind set is all test: its every line is scored, and only when asked for by name
    const blind = name.startsWith('web-blind');
    if (blind && only !== name) continue;
    const rows = readFixture(file, columns);
    const parts: Array<[string, typeof rows]> = blind
      ? [['all', rows]]
      : part === 'all'
        ? [
            ['in-sample', rows.filter((r) => !heldOut(r.text))],
            ['held-out', rows.filter((r) => heldOut(r.text))],
            ['all', rows],
          ]
        : [[part, rows.filter((r) => heldOut(r.text) === (part === 'held-out'))]];
    for (const [label, selected] of parts) {
      const s = score(selected);
      console.log(`persons-${name}.tsv ${label}: ${formatScores(s)}`);
      if (!errors) continue;
      for (const m of s.missed) console.log(`  missed ${m}`);
      for (const w of s.wrong) console.log(`  wrong  ${w}`);
      for (const t of s.touched) console.log(`  place  ${t}`);
    }
  }
}

main(process.argv.slice(2));
