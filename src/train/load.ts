/** A trained run's model and vocabulary, from its latest checkpoint (for captioning and evaluation). */
import type { CaptionModel } from '../models/types';
import type { Vocabulary } from '../text/vocab';
import { initBackend } from '../tf/backend';
import { loadLatestCheckpoint } from './checkpoint';
import { modelFromConfig, type ModelSpec } from './models';
import { readVocab } from './trainer';

export interface LoadedModel {
  model: CaptionModel;
  vocab: Vocabulary;
  checkpoint: string;
  spec: ModelSpec;
}

/**
 * Loads `runs/<id>` (its newest checkpoint that verifies; `warn` gets a line per one skipped) or a
 * checkpoint directory inside one.
 */
export async function loadRunModel(runOrCheckpointDir: string, options: { warn?: (line: string) => void } = {}): Promise<LoadedModel> {
  await initBackend({ logger: () => {} });
  const ckpt = loadLatestCheckpoint(runOrCheckpointDir, { optimizer: false, warn: options.warn });
  if (!ckpt) throw new Error(`${runOrCheckpointDir}: no checkpoint (not a trained cckit run?)`);
  const checkpoint = ckpt.dir;
  const config = ckpt.modelConfig as { spec: ModelSpec; resolved: unknown };
  if (!config?.spec || !config.resolved) throw new Error(`${checkpoint}/model.json: no model config`);
  const model = modelFromConfig(config.spec, config.resolved);
  for (const [name, v] of model.variables()) {
    const t = ckpt.weights.get(`model/${name}`);
    if (!t) throw new Error(`${checkpoint}: no weights for model/${name}`);
    v.assign(t);
  }
  for (const t of ckpt.weights.values()) t.dispose();
  // The vocabulary sits in the run directory, two levels above a checkpoint.
  const runDir = checkpoint.includes('/checkpoints/') ? checkpoint.slice(0, checkpoint.lastIndexOf('/checkpoints/')) : runOrCheckpointDir;
  return { model, vocab: readVocab(runDir), checkpoint, spec: config.spec };
}
