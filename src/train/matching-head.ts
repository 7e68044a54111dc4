/** IC+VLM multitask: a matching model whose image side is the captioner's own encoder. */
import { DEFAULT_MATCHING, MatchingModel } from '../models/matching';
import type { CaptionModel } from '../models/types';

export function createSharedMatching(model: CaptionModel, vocabSize: number, seed: number): MatchingModel {
  const imageDim = model.memoryWidth;
  if (!imageDim) throw new Error(`vlm objective: the ${model.kind} model does not declare its encoder's width (CaptionModel.memoryWidth)`);
  return new MatchingModel(
    { ...DEFAULT_MATCHING, vocabSize, visualDim: imageDim, dModel: imageDim, embedDim: imageDim, seed },
    { imageEncoder: (input, training) => model.encode(input, training), imageDim },
  );
}
