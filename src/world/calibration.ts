/**
 * What the world is calibrated against: the papers' statistics that `cckit world check`
 * (src/experiments/world-check.ts) measures on a built world, each with the paper's value(s),
 * the accepted range or rule, where the number comes from, and the world parameters that move it.
 *
 * Plain data only (the values are copied from notebooks/paper-numbers.json where the papers state
 * them; src/world may not import src/report). The measuring code reads `accept` by statistic id;
 * `calibratedBy` names parameters as `<options>.<field>` of src/world (`altText.*`: AltTextOptions
 * in alttext.ts, `references.*`: ReferenceOptions in alttext.ts, `tagger.*`: TaggerOptions in tags.ts,
 * `cocoScenes.*`: CocoSceneOptions in world.ts, `world.*`: WorldOptions and the samplers in world.ts) and is free-form so more can be added.
 * docs/world.md (*Calibration*) gives each parameter's value and what the check measured.
 */

export type CalibrationId =
  | 'pool-ratio'
  | 'caption-precision'
  | 'person-share'
  | 'caption-length-mean'
  | 'caption-length-std'
  | 'token-type-ratio'
  | 'rare-words'
  | 'nocaps-out-coverage'
  | 'human-cider-nocaps'
  | 'human-cider-coco'
  | 'pretrain-to-finetune'
  | 'pool-overlap'
  | 'coco-vocabulary'
  | 'person-presence'
  | 'coco-objects-per-image';

export interface CalibrationTarget {
  id: CalibrationId;
  description: string;
  /** The papers' values (keys depend on the statistic: pool names, words, domains). */
  paper: Record<string, number | readonly number[]>;
  /** Numbers of the acceptance rule (keys depend on the statistic; `rule` says how they are used). */
  accept: Record<string, number | readonly number[]>;
  /** The acceptance rule in words. */
  rule: string;
  /** Paper and section the target comes from. */
  source: string;
  /** World parameters that move the statistic. */
  calibratedBy: string[];
}

const CC3M = 'Sharma et al. 2018 (Conceptual Captions, ACL)';
const CC12M = 'Changpinyo et al. 2021 (Conceptual 12M, CVPR)';
const NOCAPS = 'Agrawal et al. 2019 (nocaps, ICCV)';
const COCO = 'Lin et al. 2014 (Microsoft COCO, ECCV)';
/** COCO 2017 train: 118,287 images, 591,753 captions (Chen et al. 2015; the CC3M paper's §5.1 COCO training set). */
const COCO_TRAIN_CAPTIONS = 591_753;

export const CALIBRATION: readonly CalibrationTarget[] = [
  {
    id: 'pool-ratio',
    description: 'CC12M / CC3M kept-pair ratio',
    paper: { cc3m: 3_318_333, cc12m: 12_423_374, ratio: 12_423_374 / 3_318_333 },
    accept: { min: 3.0, max: 4.5 },
    rule: 'ratio in [min, max]',
    source: `${CC12M}, Table 1 (pairs); ${CC3M}, Table 1 (train examples)`,
    calibratedBy: ['altText.lowercaseShare', 'altText.phraseShare', 'altText.longShare'],
  },
  {
    id: 'caption-precision',
    description: 'share of kept pairs whose text describes the image (ground truth)',
    paper: { cc3m: 0.903, cc12m: 0.766 },
    accept: { tolerance: 0.08, gap: [0.05, 0.25] },
    rule: 'each pool within ±tolerance of the paper, and CC3M − CC12M in gap',
    source: `${CC3M}, Sec. 4 (human evaluation, 2+ of 3 raters "good"); ${CC12M}, Sec. 3.1 (100-caption check, score ≥ 4 of 5)`,
    calibratedBy: ['altText.mismatchShare', 'altText.contextMismatchShare', 'altText.mismatchSharedObjectShare'],
  },
  {
    id: 'person-share',
    description: 'share of CC12M kept captions containing <PERSON>',
    paper: { cc12m: 0.25 },
    accept: { min: 0.18, max: 0.32 },
    rule: 'share in [min, max]',
    source: `${CC12M}, Sec. 3.1 ("about 25% of CC12M captions contain <PERSON>")`,
    calibratedBy: ['altText.personShare'],
  },
  {
    id: 'caption-length-mean',
    description: 'tokens per caption, mean (Table 1 tokenisation, as cckit stats)',
    paper: { cc3m: 10.3, cc12m: 20.2 },
    accept: { minRatio: 1.5 },
    rule: 'CC12M mean ≥ minRatio × CC3M mean',
    source: `${CC12M}, Table 1`,
    calibratedBy: ['altText.longShare'],
  },
  {
    id: 'caption-length-std',
    description: 'tokens per caption, standard deviation',
    paper: { cc3m: 4.5, cc12m: 16.3 },
    accept: { minRatio: 2 },
    rule: 'CC12M std ≥ minRatio × CC3M std',
    source: `${CC12M}, Table 1`,
    calibratedBy: ['altText.longShare'],
  },
  {
    id: 'token-type-ratio',
    description: 'token/type ratio (direction only: its absolute value grows with corpus size)',
    paper: { cc3m: 804.8, cc12m: 370.0 },
    accept: {},
    rule: 'CC12M token/type < CC3M token/type',
    source: `${CC12M}, Table 1`,
    calibratedBy: ['world.zipfExponent', 'altText.longShare'],
  },
  {
    id: 'rare-words',
    description: 'occurrences of rare words (word or plural) in kept CC3M vs CC12M captions',
    paper: { mangosteen: [0, 212], durian: [61, 552], quiche: [50, 1109] },
    accept: { minRatio: 3 },
    rule: 'CC12M count > CC3M count for each word, and CC12M / CC3M ≥ minRatio where CC3M > 0',
    source: `${CC12M}, Table 1 (rare-word counts)`,
    calibratedBy: ['world.zipfExponent', 'altText.hypernymShare'],
  },
  {
    id: 'nocaps-out-coverage',
    description: 'share of nocaps-val out-of-domain concepts mentioned in ≥ k kept captions',
    paper: {},
    accept: { ks: [1, 5, 10] },
    rule: 'CC12M share > CC3M share at every k',
    source: `${CC12M}, Table 9 (coverage of nocaps out-of-domain classes)`,
    calibratedBy: ['world.outOfDomainSampler'],
  },
  {
    id: 'human-cider-nocaps',
    description: 'leave-one-out CIDEr-D (×100) of the nocaps-val references, by domain',
    paper: { in: 84, near: 85, out: 96, overall: 87 },
    accept: { min: 60, max: 120 },
    rule: 'every domain and overall in [min, max]',
    source: `${NOCAPS}, Table 3 (human baseline, val)`,
    calibratedBy: [
      'references.unfamiliarHypernymShare',
      'references.adjectiveShare',
      'references.secondAdjectiveShare',
      'references.secondObjectShare',
      'references.thirdObjectShare',
    ],
  },
  {
    id: 'human-cider-coco',
    description: 'leave-one-out CIDEr-D (×100) of the COCO-val references',
    paper: { overall: 85 },
    accept: { min: 60, max: 120 },
    rule: 'overall in [min, max]',
    source: 'Chen et al. 2015 (COCO Captions), leaderboard human c5',
    calibratedBy: [
      'references.salienceDecay',
      'references.adjectiveShare',
      'references.secondAdjectiveShare',
      'references.secondObjectShare',
      'references.thirdObjectShare',
    ],
  },
  {
    id: 'pretrain-to-finetune',
    description: 'pre-training pairs per COCO-like training caption (CC3M-like, CC12M-like)',
    paper: { cc3m: 3_318_333 / COCO_TRAIN_CAPTIONS, cc12m: 12_423_374 / COCO_TRAIN_CAPTIONS },
    accept: { tiny: [2, 8], small: [3_318_333 / COCO_TRAIN_CAPTIONS, 12_423_374 / COCO_TRAIN_CAPTIONS] },
    rule: "each pool's pairs / COCO-like train captions ≥ the preset's [cc3m, cc12m] minimum (small: the papers' ratios)",
    source: `${CC3M}, Table 1 and Sec. 5.1 (COCO train); ${CC12M}, Table 1`,
    calibratedBy: ['world.sizes (web pool, coco-train)'],
  },
  {
    id: 'pool-overlap',
    description: 'share of CC3M-like images that are also in the CC12M-like pool',
    paper: { sharedUrls: 63_000, cc3m: 3_318_333, share: 63_000 / 3_318_333 },
    accept: { max: 0.05 },
    rule: "share ≤ max (cckit tolerance around the papers' ~2%)",
    source: `${CC12M}, Sec. 3 (CC3M images not used in CC12M experiments) and its dataset README (~63K URLs shared with CC3M)`,
    calibratedBy: ['world pipelines (CC12M pool = relaxed pool minus the strict pool)'],
  },
  {
    id: 'coco-vocabulary',
    description: 'word types seen ≥ 4 times: COCO-like training captions / CC3M-like pool',
    paper: { coco: 9_000, conceptual: 25_000, ratio: 9_000 / 25_000 },
    accept: { max: 0.5 },
    rule: "ratio ≤ max (cckit tolerance around the paper's ~0.36)",
    source: `${CC3M}, Sec. 5.2 (vocabularies at min count 4: ~9K COCO, ~25K Conceptual)`,
    calibratedBy: ['references.* (COCO-like caption vocabulary)', 'world concepts named in COCO-like captions'],
  },
  {
    id: 'person-presence',
    description: 'share of web alt-texts naming a person whose image shows a person',
    paper: { examples: 2, present: 2 },
    accept: { min: 0.5 },
    rule: "share ≥ min (the papers give no rate: cckit's reading of CC3M Table 1, where both alt-texts that name a person show that person)",
    source: `${CC3M}, Table 1 (the worker, the musician)`,
    calibratedBy: ["altText person style (altTextPlan: a person named as the picture's subject is shown first in its scene)"],
  },
  {
    id: 'coco-objects-per-image',
    description: 'COCO categories per COCO-like image (train and val): mean, and the share with only one',
    paper: { perImage: 3.5, singleShare: 0.1 },
    accept: { min: 2.8, max: 4.2, maxSingleShare: 0.2 },
    rule: "mean in [min, max] and single-object share ≤ maxSingleShare (cckit tolerances around COCO's 3.5 and ~10%)",
    source: `${COCO}, Sec. 5 (3.5 categories and 7.7 instances per image; about 10% of images with one category)`,
    calibratedBy: ['cocoScenes.objectCountWeights', 'cocoScenes.contextShare'],
  },
];

/** The target of one statistic. */
export function calibrationTarget(id: CalibrationId): CalibrationTarget {
  const target = CALIBRATION.find((t) => t.id === id);
  if (!target) throw new Error(`no calibration target "${id}"`);
  return target;
}
