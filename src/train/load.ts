/** A trained run's model and vocabulary, from its latest checkpoint (captioners for captioning and evaluation; the matching model for retrieval). */
import { MatchingModel } from '../models/matching';
import type { CaptionModel } from '../models/types';
import type { Vocabulary } from '../text/vocab';
import { initBackend } from '../tf/backend';
import { loadLatestCheckpoint } from './checkpoint';
import { isCaptioner, modelFromConfig, type ModelSpec, type TrainableModel } from './models';
import { readVocab } from './trainer';

export interface LoadedModel<M extends TrainableModel = CaptionModel> {
  model: M;
  vocab: Vocabulary;
  checkpoint: string;
  spec: ModelSpec;
}

/**
 * Loads `runs/<id>` (its newest checkpoint that verifies; `warn` gets a line per one skipped) or a
 * checkpoint directory inside one: a captioner.
 */
export async function loadRunModel(runOrCheckpointDir: string, options: { warn?: (line: string) => void } = {}): Promise<LoadedModel> {
  const loaded = await loadRunAnyModel(runOrCheckpointDir, options);
  if (isCaptioner(loaded.model)) return { ...loaded, model: loaded.model };
  loaded.model.dispose();
  throw new Error(`${loaded.checkpoint}: a ${loaded.spec.kind} model, not a captioner`);
}

/** Loads a run of the matching model (CC12M Table 8), as loadRunModel does a captioner's. */
export async function loadRunMatchingModel(runOrCheckpointDir: string, options: { warn?: (line: string) => void } = {}): Promise<LoadedModel<MatchingModel>> {
  const loaded = await loadRunAnyModel(runOrCheckpointDir, options);
  if (loaded.model instanceof MatchingModel) return { ...loaded, model: loaded.model };
  loaded.model.dispose();
  throw new Error(`${loaded.checkpoint}: a ${loaded.spec.kind} model, not the matching model`);
}

async function loadRunAnyModel(runOrCheckpointDir: string, options: { warn?: (line: string) => void }): Promise<LoadedModel<TrainableModel>> {
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
