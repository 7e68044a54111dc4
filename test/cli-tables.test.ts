/** `cckit table <paper>/<table>` (src/cli/table.ts) over the registry of every table (src/experiments/tables.ts). */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';

import * as cckit from '../src';
import { RECIPES, withSetting } from '../src/experiments/recipe';
import { TABLES, tableNamed } from '../src/experiments/tables';
import { readProfile } from '../src/report/profile';
import { recipeFromFlags, seedsFromFlags } from '../src/cli/table';
import { runCli } from './helpers';

test('cckit table --help lists every table of the registry with its title', () => {
  const help = runCli(['table', '--help']);
  assert.equal(help.status, 0, help.stderr);
  for (const [name, table] of Object.entries(TABLES)) {
    assert.equal(table.name, name, 'an entry is named by its key');
    assert.ok(help.stdout.includes(`${name} `) && help.stdout.includes(table.title), `${name} missing from --help`);
  }
  const unknown = runCli(['table', 'cc12m/table99']);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /no table named 'cc12m\/table99'; the tables: cc12m\/table1, cc12m\/table3/);
  assert.equal(tableNamed('cc12m/table6'), TABLES['cc12m/tables6-10'], 'Table 6 is the narratives run');
});

test("every notebook namespace's run, rows, claims and forest come from its registry entry", () => {
  const namespaces: [object, string][] = [
    [cckit.cc12m.table1, 'cc12m/table1'],
    [cckit.cc12m.table3, 'cc12m/table3'],
    [cckit.cc12m.table4, 'cc12m/table4'],
    [cckit.cc12m.table5, 'cc12m/table5'],
    [cckit.cc12m.table7, 'cc12m/table7'],
    [cckit.cc12m.table8, 'cc12m/table8'],
    [cckit.cc12m.table10, 'cc12m/tables6-10'],
    [cckit.cc12m.table11, 'cc12m/table11'],
    [cckit.cc12m.table12, 'cc12m/table12'],
    [cckit.cc12m.fig6, 'cc12m/fig6'],
    [cckit.cc3m.tables1to3, 'cc3m/tables1-3'],
    [cckit.cc3m.tables4to7, 'cc3m/tables4-7'],
  ];
  assert.equal(namespaces.length, Object.keys(TABLES).length, 'every table has a namespace');
  for (const [namespace, name] of namespaces) {
    const api = namespace as { definition: unknown; run: unknown; rows: unknown; claims: unknown; forest: unknown };
    assert.equal(api.definition, tableNamed(name), name);
    assert.equal(api.run, tableNamed(name).run, `${name}: one run(recipe, options)`);
    for (const member of ['rows', 'claims', 'forest'] as const) assert.equal(typeof api[member], 'function', `${name}.${member}`);
  }
});

test('--set changes one recipe value by its dotted path; a wrong path or kind is an error naming it', () => {
  const recipe = recipeFromFlags('tiny', ['finetune.lr=1e-4', 'ablations.maskingRates=[0.1,0.3]', 'decode.method=greedy']);
  assert.equal(recipe.finetune.lr, 1e-4);
  assert.deepEqual(recipe.ablations.maskingRates, [0.1, 0.3]);
  assert.equal(recipe.decode.method, 'greedy');
  assert.equal(recipe.pretrain.lr, RECIPES.tiny.pretrain.lr);
  assert.equal(RECIPES.tiny.finetune.lr, 5e-4, 'the preset itself is untouched');
  assert.throws(() => withSetting(RECIPES.tiny, 'finetune.lrr', 1), /recipe has no setting 'finetune.lrr' \(finetune has: steps, batchSize, lr,/);
  assert.throws(() => withSetting(RECIPES.tiny, 'fintune.lr', 1), /no setting 'fintune' \(sections: preset, seed,/);
  assert.throws(() => withSetting(RECIPES.tiny, 'finetune.lr', 'fast'), /'finetune.lr' is a number; got a string/);
  assert.throws(() => withSetting(RECIPES.tiny, 'ablations.maskingRates', 0.2), /is a list; got a number/);
  assert.throws(() => withSetting(RECIPES.tiny, 'finetune.lr.x', 1), /'finetune.lr' is a value, not a section/);
  assert.throws(() => recipeFromFlags('tiny', ['finetune.lr']), /expected key=value/);
  assert.throws(() => recipeFromFlags('huge', []), /--preset/);
  const cli = runCli(['table', 'cc12m/table3', '--set', 'finetune.steps=many']);
  assert.equal(cli.status, 1);
  assert.match(cli.stderr, /recipe setting 'finetune.steps' is a number; got a string \("many"\)/);
});

test('--seeds lists several seeds; --seed one', () => {
  assert.deepEqual(seedsFromFlags({ seed: '3' }), [3]);
  assert.deepEqual(seedsFromFlags({ seed: '0', seeds: '0, 1,2' }), [0, 1, 2]);
  assert.throws(() => seedsFromFlags({ seed: '0', seeds: '0,0' }), /named twice/);
  assert.throws(() => seedsFromFlags({ seed: '0', seeds: '0,x' }), /--seeds/);
});

// The tiny world and its two pools (about 3 minutes on 2 cores the first time), in the repository's .cckit-cache:
// the notebooks test later reads the same world and pools, so the suite builds them once.
test('cckit table cc12m/table1 --json: the tables, the claims and each seed as JSON; as text the same tables', () => {
  const run = runCli(['table', 'cc12m/table1', '--preset', 'tiny', '--seed', '0', '--json']);
  assert.equal(run.status, 0, run.stderr);
  const out = JSON.parse(run.stdout) as {
    table: string;
    seeds: number[];
    tables: Record<string, Record<string, unknown>[]>;
    claims: unknown[];
    perSeed: { seed: number }[];
  };
  assert.equal(out.table, 'cc12m/table1');
  assert.deepEqual(out.seeds, [0]);
  assert.deepEqual(Object.keys(out.tables), ['table1', 'directions', 'funnels']);
  assert.equal(out.tables.table1![0]!.statistic, '# image-text pairs');
  assert.ok(out.tables.funnels!.some((r) => r.pipeline === 'cc3m' && r.stage === 'text'));
  // Table 1's two claims; one world without per-image evidence decides neither
  const claims = out.claims as { claim: string; here: string }[];
  assert.deepEqual(
    claims.map((c) => c.here),
    ['not measured', 'not measured'],
  );
  assert.match(claims[0]!.claim, /longer/);
  assert.equal(out.perSeed[0]!.seed, 0);
  // as text, with a profile: the world is the JSON run's (cached), so the spans are the pipeline check and the report
  const profile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cckit-table-profile-')), 'table1.jsonl');
  const text = runCli(['table', 'cc12m/table1', '--profile', profile]);
  assert.equal(text.status, 0, text.stderr);
  const records = readProfile(profile);
  assert.ok(
    records.spans.some((s) => s.kind === 'report' && s.name === 'cc12m/table1'),
    JSON.stringify(records.spans),
  );
  assert.ok(records.samples.length >= 1, 'the last core sample is taken when the run stops');
  const summary = fs.readFileSync(`${profile}.md`, 'utf8');
  assert.match(summary, /^Whole run: \d+\.\d s\./);
  assert.match(summary, /\| report \| 1 \|/);
  assert.ok(text.stdout.includes(`profile (${profile}, summary in ${profile}.md):`));
  fs.rmSync(path.dirname(profile), { recursive: true, force: true });
  assert.match(text.stdout, /cc12m\/table1 — Table 1: .*\ntiny preset, seed 0\n\ntable1:\nstatistic +CC3M \(here\)/);
  assert.match(text.stdout, new RegExp(`\\n# image-text pairs +${out.tables.table1![0]!['CC3M (here)']} `));
});
