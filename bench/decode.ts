/**
 * Decoding speed: images/s for greedy and beam 5 (α 0.6, max 36; exact and heuristic early
 * stopping) on one model, medians of several
 * timed runs, and what beam 5 costs per image relative to greedy. Times are CPU seconds of the
 * process (steadier than wall time on a shared machine; equal to it for single-threaded wasm).
 *
 * Run: npm run bench:decode -- [--model ngram|tiny|small] [--images 64] [--batch 32] [--runs 3]
 *        [--vocab 3000] [--positions 65] [--visual-dim 256] [--eos-ramp 0.5] [--full-prefix]
 *
 * `--model tiny|small` is a randomly initialised TransformerCaptioner of that size. A random model
 * hardly ever says EOS, so every caption would run to 36 tokens; `--eos-ramp S` (default 0.5) adds
 * S·(t − 8) to the EOS logit at position t, which ends captions after ~10 tokens like a trained
 * model's (0 turns it off). The Transformer decodes incrementally (its `startIncremental` / `step`);
 * `--full-prefix` also times it through `decode` on whole prefixes. A trained model plugs in through
 * `benchDecode({ name, model, input }, …)`.
 */
import type * as TF from '@tensorflow/tfjs';
import { initBackend, loadTf } from '../src/tf/backend';
import { CaptionModel, Encoded, EncoderInput, hasIncremental } from '../src/models/types';
import { EOS_ID } from '../src/text/tokens';
import { beamSearch, DecodeResult, greedyDecode, StepDecoder } from '../src/decode';
import { lcgValues, NgramCaptionModel } from '../test/fixtures/ngram-model';
import { DEFAULT_TRANSFORMER, TransformerCaptioner, TRANSFORMER_SIZES } from '../src/models/transformer';

export interface BenchModel {
  name: string;
  model: CaptionModel;
  /** Encoder inputs for `batch` images (deterministic for a seed). */
  input(batch: number, seed: number): EncoderInput;
}

export interface DecodeBenchOptions {
  /** Also time both decoders through `decode` on whole prefixes. */
  fullPrefix?: boolean;
  images: number;
  batch: number;
  runs: number;
  maxLen: number;
}

export interface DecodeBenchRow {
  decoder: string;
  imagesPerSec: number;
  msPerImage: number;
  /** Mean caption length (tokens). */
  meanLength: number;
  /** Decoder rows per image (one row = one prefix scored once). */
  rowsPerImage: number;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** Wraps a model so that the EOS logit grows along the prefix: slope · (t − start); keeps its incremental decoding. */
export function withEosRamp(model: CaptionModel, slope: number, start = 8): CaptionModel {
  if (slope === 0) return model;
  const tf = loadTf();
  const ramp = (T: number, V: number, from: number): Float32Array => {
    const out = new Float32Array(T * V);
    for (let t = 0; t < T; t++) out[t * V + EOS_ID] = slope * (from + t - start);
    return out;
  };
  const wrapped: CaptionModel = {
    kind: model.kind,
    vocabSize: model.vocabSize,
    memoryWidth: model.memoryWidth,
    encode: (input, training) => model.encode(input, training),
    tileEncoded: (e, times) => model.tileEncoded(e, times),
    variables: () => model.variables(),
    dispose: () => model.dispose(),
    decode: (encoded: Encoded, tokens: TF.Tensor2D, training?: boolean) =>
      tf.tidy(() => {
        const logits = model.decode(encoded, tokens, training);
        const [, T, V] = logits.shape;
        return tf.add(logits, tf.tensor3d(ramp(T, V, 0), [1, T, V])) as TF.Tensor3D;
      }),
  };
  if (hasIncremental(model)) {
    return {
      ...wrapped,
      startIncremental: (encoded) => model.startIncremental(encoded),
      step: (state, tokens, width) => {
        const out = model.step(state, tokens, width);
        const V = model.vocabSize;
        const logits = tf.tidy(() => tf.add(out.logits, tf.tensor2d(ramp(1, V, state.position), [1, V])) as TF.Tensor2D);
        out.logits.dispose();
        return { logits, state: out.state };
      },
    };
  }
  return wrapped;
}

function timeDecoder(
  bench: BenchModel,
  decode: (input: EncoderInput) => DecodeResult,
  options: DecodeBenchOptions,
): { ms: number; meanLength: number; rowsPerImage: number } {
  const batches = Math.ceil(options.images / options.batch);
  const inputs = Array.from({ length: batches }, (_, i) => bench.input(Math.min(options.batch, options.images - i * options.batch), 1000 + i));
  let lengths = 0;
  let rows = 0;
  // CPU time of this process (user + system): on a shared machine far steadier than wall time, and
  // the same thing for the single-threaded wasm backend
  const once = (): number => {
    lengths = 0;
    rows = 0;
    const c0 = process.cpuUsage();
    for (const input of inputs) {
      const result = decode(input);
      lengths += result.tokens.reduce((n, t) => n + t.length, 0);
      rows += result.rowsDecoded;
    }
    const c = process.cpuUsage(c0);
    return (c.user + c.system) / 1000;
  };
  decode(inputs[0]); // warm-up
  const times: number[] = [];
  for (let r = 0; r < options.runs; r++) times.push(once());
  for (const input of inputs) for (const t of [input.visual, input.visualMask]) t.dispose();
  return { ms: median(times), meanLength: lengths / options.images, rowsPerImage: rows / options.images };
}

/**
 * Greedy and beam 5 on one model; with `fullPrefix` also both through `decode` on whole prefixes
 * (no step decoder). Returns the rows and the beam/greedy cost ratio per image (first pair).
 */
export function benchDecode(bench: BenchModel, options: DecodeBenchOptions): { rows: DecodeBenchRow[]; ratio: number; heuristicRatio: number } {
  const modes: [string, StepDecoder | false | undefined][] = [['', undefined]];
  if (options.fullPrefix) modes.push([' (full prefix)', false]);
  const decoders: [string, (input: EncoderInput) => DecodeResult][] = modes.flatMap(
    ([label, stepDecoder]): [string, (input: EncoderInput) => DecodeResult][] => [
      [`greedy${label}`, (input) => greedyDecode(bench.model, input, { maxLen: options.maxLen, stepDecoder })],
      [`beam 5 α0.6${label}`, (input) => beamSearch(bench.model, input, { beamSize: 5, alpha: 0.6, maxLen: options.maxLen, stepDecoder })],
      [
        `beam 5 heuristic stop${label}`,
        (input) => beamSearch(bench.model, input, { beamSize: 5, alpha: 0.6, maxLen: options.maxLen, stepDecoder, earlyStopping: 'heuristic' }),
      ],
    ],
  );
  const rows = decoders.map(([decoder, decode]) => {
    const { ms, meanLength, rowsPerImage } = timeDecoder(bench, decode, options);
    return { decoder, imagesPerSec: options.images / (ms / 1000), msPerImage: ms / options.images, meanLength, rowsPerImage };
  });
  return { rows, ratio: rows[1].msPerImage / rows[0].msPerImage, heuristicRatio: rows[2].msPerImage / rows[0].msPerImage };
}

function flag(args: string[], name: string, fallback: string): string {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : fallback;
}

export function makeBenchModel(kind: string, vocab: number, positions: number, visualDim: number, eosRamp: number): BenchModel {
  const tf = loadTf();
  if (kind === 'ngram') {
    // one visual vector per image, EOS likely from ~10 tokens on: captions of realistic length
    const model = new NgramCaptionModel({ vocabSize: Math.min(vocab, 400), visualDim, seed: 1, scale: 1, eosSlope: 1, eosOffset: -10 });
    return { name: `n-gram stand-in (V ${model.vocabSize})`, model, input: (b, seed) => model.randomInput(b, seed, 1) };
  }
  if (kind !== 'tiny' && kind !== 'small') throw new Error(`--model: ngram, tiny or small, not ${kind}`);
  const size = TRANSFORMER_SIZES[kind];
  const model = new TransformerCaptioner({ ...DEFAULT_TRANSFORMER, ...size, vocabSize: vocab, visualDim, dropout: 0 });
  return {
    name: `random transformer ${kind} (${size.decoderLayers} decoder layers, d ${size.dModel}, V ${vocab}, ${positions} visual positions)`,
    model: withEosRamp(model, eosRamp),
    input: (b, seed) => ({
      visual: tf.tensor3d(lcgValues(b * positions * visualDim, seed), [b, positions, visualDim]),
      visualMask: tf.ones([b, positions]) as TF.Tensor2D,
    }),
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const info = await initBackend();
  const options: DecodeBenchOptions = {
    images: Number(flag(args, 'images', '64')),
    batch: Number(flag(args, 'batch', '32')),
    runs: Number(flag(args, 'runs', '3')),
    maxLen: Number(flag(args, 'max-len', '36')),
    fullPrefix: args.includes('--full-prefix'),
  };
  const bench = makeBenchModel(
    flag(args, 'model', 'tiny'),
    Number(flag(args, 'vocab', '3000')),
    Number(flag(args, 'positions', '65')),
    Number(flag(args, 'visual-dim', '256')),
    Number(flag(args, 'eos-ramp', '0.5')),
  );
  console.log(
    `${bench.name} on ${info.name} (${info.threads} thread(s)); ${options.images} images in batches of ${options.batch}, median of ${options.runs} runs, CPU time`,
  );
  const { rows, ratio, heuristicRatio } = benchDecode(bench, options);
  console.log(`${'decoder'.padEnd(36)} images/s   ms/image   mean len   rows/image`);
  for (const r of rows) {
    console.log(
      `${r.decoder.padEnd(35)} ${r.imagesPerSec.toFixed(1).padStart(9)} ${r.msPerImage.toFixed(2).padStart(10)} ${r.meanLength.toFixed(1).padStart(10)} ${r.rowsPerImage.toFixed(1).padStart(12)}`,
    );
  }
  console.log(`beam 5 / greedy cost per image: ${ratio.toFixed(2)}× (exact early stopping), ${heuristicRatio.toFixed(2)}× (heuristic)`);
  bench.model.dispose();
}

if (require.main === module) {
  main().catch((e: unknown) => {
    console.error(e);
    process.exit(1);
  });
}
