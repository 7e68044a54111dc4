/** IC+VLM multitask: a matching model whose image side is the captioner's own encoder. */
import { DEFAULT_MATCHING, MatchingModel } from '../models/matching';
import type { CaptionModel } from '../models/types';

export function createSharedMatching(model: CaptionModel, vocabSize: number, seed: number): MatchingModel {
  const width = (model as CaptionModel & { config?: { dModel?: number; hidden?: number } }).config;
  const imageDim = width?.dModel ?? width?.hidden;
  if (!imageDim) throw new Error(`vlm objective: cannot tell the ${model.kind} encoder's width`);
  return new MatchingModel(
    { ...DEFAULT_MATCHING, vocabSize, visualDim: imageDim, dModel: imageDim, embedDim: imageDim, seed },
    { imageEncoder: (input, training) => model.encode(input, training), imageDim },
  );
}
