/**
 * The world's splits and their sizes per preset, like the papers' data: a web candidate pool
 * (for the CC3M / CC12M pipelines), COCO-like train/val (only the 80 common concepts, 5 clean
 * references), nocaps-like val/test (10 references, in/near/out domains), a Flickr-like retrieval
 * set (5 captions) and long narrative-style captions (Localized Narratives).
 */
import { mixSeed, seededRandom } from '../util/random';

export const WORLD_SPLITS = ['web', 'coco-train', 'coco-val', 'nocaps-val', 'nocaps-test', 'flickr', 'narratives'] as const;
export type WorldSplit = (typeof WORLD_SPLITS)[number];

export type WorldPresetName = 'tiny' | 'small' | 'medium';

/**
 * The sizes keep the papers' proportions between pre-training and fine-tuning data (calibration target
 * `pretrain-to-finetune`): COCO 2017 train's 591,753 captions are 1/5.6 of CC3M's pairs and 1/21 of CC12M's
 * (CC3M Table 1 and §5.1; CC12M Table 1). The web pool sets the pools (the CC3M-like pipeline keeps ~9% of it,
 * the CC12M-like pool ~30% after removing CC3M's images), and the COCO-like train split is sized from them: at
 * least 2× / 8× at tiny (75 images × 5 captions against ~850 / ~3,000 pairs), the papers' 5.6× / 21× at small
 * and medium. The web pool is as large as the quick start's time allows (issue #26: ≤ 10 min).
 * The Flickr-like split holds 2,000 images at tiny and small so that Table 8's test half is Flickr30k's 1,000-image
 * test set (CC12M Table 8; its fine-tuning half is 1,000 images, Flickr30k's ~29,000 at a smaller scale).
 */
export const WORLD_PRESETS: Record<WorldPresetName, Record<WorldSplit, number>> = {
  tiny: { web: 10_000, 'coco-train': 75, 'coco-val': 250, 'nocaps-val': 450, 'nocaps-test': 450, flickr: 2_000, narratives: 200 },
  small: { web: 50_000, 'coco-train': 140, 'coco-val': 1_000, 'nocaps-val': 1_500, 'nocaps-test': 1_500, flickr: 2_000, narratives: 1_000 },
  medium: { web: 500_000, 'coco-train': 1_400, 'coco-val': 5_000, 'nocaps-val': 4_500, 'nocaps-test': 10_600, flickr: 5_000, narratives: 5_000 },
};

export type NocapsDomain = 'in' | 'near' | 'out';

/** nocaps's image counts per domain (val: 648 / 2,938 / 914 of 4,500; test: 1,311 / 7,406 / 1,883 of 10,600). */
export const NOCAPS_DOMAIN_COUNTS: Record<'nocaps-val' | 'nocaps-test', Record<NocapsDomain, number>> = {
  'nocaps-val': { in: 648, near: 2938, out: 914 },
  'nocaps-test': { in: 1311, near: 7406, out: 1883 },
};

/** References per image in each captioned split. */
export const REFERENCES_PER_IMAGE: Partial<Record<WorldSplit, number>> = {
  'coco-train': 5,
  'coco-val': 5,
  'nocaps-val': 10,
  'nocaps-test': 10,
  flickr: 5,
  narratives: 1,
};

/** Number used for a split when mixing seeds, so each split has its own streams. */
export function splitNumber(split: WorldSplit): number {
  return WORLD_SPLITS.indexOf(split) + 1;
}

/** The domain of nocaps-like image `id`, drawn with nocaps's proportions from (seed, split, id). */
export function nocapsDomain(seed: number, split: 'nocaps-val' | 'nocaps-test', id: number): NocapsDomain {
  const counts = NOCAPS_DOMAIN_COUNTS[split];
  const total = counts.in + counts.near + counts.out;
  const u = seededRandom(mixSeed(seed, splitNumber(split), id, 0xd0))();
  if (u < counts.in / total) return 'in';
  if (u < (counts.in + counts.near) / total) return 'near';
  return 'out';
}

export function isWorldSplit(name: string): name is WorldSplit {
  return (WORLD_SPLITS as readonly string[]).includes(name);
}
