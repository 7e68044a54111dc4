import { readJsonFile, InputError } from '../util/json';
import { retrievalRecall } from '../metrics/retrieval';
import { parseWholeNumber } from './options';

export function runRetrieval(flags: { similarity: string; ks: string }): void {
  const ks = flags.ks.split(',').map((k) => parseWholeNumber('--ks', k, 1));
  const data = readJsonFile(flags.similarity) as { similarity?: unknown; text_image?: unknown };
  if (typeof data !== 'object' || data === null || !Array.isArray(data.similarity)) {
    throw new InputError(flags.similarity, 'expected {"similarity": [[number, ...] per image], "text_image"?: [...]}');
  }
  const textImage = data.text_image === undefined ? undefined : (data.text_image as number[]);
  try {
    const recall = retrievalRecall(data.similarity as number[][], textImage, ks);
    process.stdout.write(JSON.stringify({ image_to_text: recall.imageToText, text_to_image: recall.textToImage }) + '\n');
  } catch (err) {
    throw new InputError(flags.similarity, (err as Error).message);
  }
}
