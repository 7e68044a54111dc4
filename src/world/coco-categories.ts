/**
 * The 80 COCO object categories (the "common" concepts of the world), in COCO's
 * order, each tied to one WordNet 3.1 noun synset.
 *
 * Sense choices worth noting (each id was checked against the reader; see
 * test/world-concepts.test.ts):
 * - "traffic light", "stop sign": WordNet files both under communication
 *   (visual signal / sign); "stop sign" has no synset of its own, so it maps to
 *   "street sign" ("a sign visible from the street").
 * - "sports ball" → ball (game equipment), "mouse" → computer mouse,
 *   "tv" → television receiver, "keyboard" → computer keyboard,
 *   "cell phone" → cellular telephone, "potted plant" → pot plant,
 *   "hair drier" → hand blower / hair dryer, "toilet" → the plumbing fixture,
 *   "bowl" → the round vessel, "hot dog" → the frankfurter served on a bun,
 *   "carrot", "broccoli", "banana", "apple", "orange" → the food senses,
 *   "cow" → the (female) domestic bovine, "bear" → the animal.
 */

export interface CocoCategory {
  /** COCO category id (1..90, with COCO's gaps). */
  id: number;
  /** COCO category name as COCO spells it. */
  name: string;
  /** COCO supercategory. */
  supercategory: string;
  /** WordNet 3.1 noun synset id. */
  synset: string;
  /** A lemma the synset must contain (checks that the id points at the intended synset). */
  lemma: string;
}

function c(id: number, name: string, supercategory: string, synset: string, lemma: string): CocoCategory {
  return { id, name, supercategory, synset, lemma };
}

export const COCO_CATEGORIES: readonly CocoCategory[] = [
  c(1, 'person', 'person', 'n00007846', 'person'),
  c(2, 'bicycle', 'vehicle', 'n02837983', 'bicycle'),
  c(3, 'car', 'vehicle', 'n02961779', 'car'),
  c(4, 'motorcycle', 'vehicle', 'n03796045', 'motorcycle'),
  c(5, 'airplane', 'vehicle', 'n02694015', 'airplane'),
  c(6, 'bus', 'vehicle', 'n02927500', 'bus'),
  c(7, 'train', 'vehicle', 'n04475240', 'train'),
  c(8, 'truck', 'vehicle', 'n04497386', 'truck'),
  c(9, 'boat', 'vehicle', 'n02861626', 'boat'),
  c(10, 'traffic light', 'outdoor', 'n06887235', 'traffic_light'),
  c(11, 'fire hydrant', 'outdoor', 'n03351744', 'fire_hydrant'),
  c(13, 'stop sign', 'outdoor', 'n06806967', 'street_sign'),
  c(14, 'parking meter', 'outdoor', 'n03897029', 'parking_meter'),
  c(15, 'bench', 'outdoor', 'n02832068', 'bench'),
  c(16, 'bird', 'animal', 'n01505702', 'bird'),
  c(17, 'cat', 'animal', 'n02124272', 'cat'),
  c(18, 'dog', 'animal', 'n02086723', 'dog'),
  c(19, 'horse', 'animal', 'n02377103', 'horse'),
  c(20, 'sheep', 'animal', 'n02414351', 'sheep'),
  c(21, 'cow', 'animal', 'n02406106', 'cow'),
  c(22, 'elephant', 'animal', 'n02506148', 'elephant'),
  c(23, 'bear', 'animal', 'n02134305', 'bear'),
  c(24, 'zebra', 'animal', 'n02393701', 'zebra'),
  c(25, 'giraffe', 'animal', 'n02441664', 'giraffe'),
  c(27, 'backpack', 'accessory', 'n02772753', 'backpack'),
  c(28, 'umbrella', 'accessory', 'n04514450', 'umbrella'),
  c(31, 'handbag', 'accessory', 'n02777157', 'handbag'),
  c(32, 'tie', 'accessory', 'n03821155', 'necktie'),
  c(33, 'suitcase', 'accessory', 'n02776843', 'suitcase'),
  c(34, 'frisbee', 'sports', 'n03402783', 'frisbee'),
  c(35, 'skis', 'sports', 'n04235116', 'ski'),
  c(36, 'snowboard', 'sports', 'n04258901', 'snowboard'),
  c(37, 'sports ball', 'sports', 'n02781674', 'ball'),
  c(38, 'kite', 'sports', 'n03626682', 'kite'),
  c(39, 'baseball bat', 'sports', 'n02802334', 'baseball_bat'),
  c(40, 'baseball glove', 'sports', 'n02803372', 'baseball_glove'),
  c(41, 'skateboard', 'sports', 'n04233049', 'skateboard'),
  c(42, 'surfboard', 'sports', 'n04370646', 'surfboard'),
  c(43, 'tennis racket', 'sports', 'n04416941', 'tennis_racket'),
  c(44, 'bottle', 'kitchen', 'n02879899', 'bottle'),
  c(46, 'wine glass', 'kitchen', 'n04599402', 'wineglass'),
  c(47, 'cup', 'kitchen', 'n03152175', 'cup'),
  c(48, 'fork', 'kitchen', 'n03388794', 'fork'),
  c(49, 'knife', 'kitchen', 'n03628765', 'knife'),
  c(50, 'spoon', 'kitchen', 'n04291140', 'spoon'),
  c(51, 'bowl', 'kitchen', 'n02884435', 'bowl'),
  c(52, 'banana', 'food', 'n07769568', 'banana'),
  c(53, 'apple', 'food', 'n07755101', 'apple'),
  c(54, 'sandwich', 'food', 'n07711710', 'sandwich'),
  c(55, 'orange', 'food', 'n07763583', 'orange'),
  c(56, 'broccoli', 'food', 'n07730735', 'broccoli'),
  c(57, 'carrot', 'food', 'n07746183', 'carrot'),
  c(58, 'hot dog', 'food', 'n07713282', 'hot_dog'),
  c(59, 'pizza', 'food', 'n07889783', 'pizza'),
  c(60, 'donut', 'food', 'n07654678', 'donut'),
  c(61, 'cake', 'food', 'n07644479', 'cake'),
  c(62, 'chair', 'furniture', 'n03005231', 'chair'),
  c(63, 'couch', 'furniture', 'n04263630', 'couch'),
  c(64, 'potted plant', 'furniture', 'n11556681', 'pot_plant'),
  c(65, 'bed', 'furniture', 'n02821967', 'bed'),
  c(67, 'dining table', 'furniture', 'n03205892', 'dining_table'),
  c(70, 'toilet', 'furniture', 'n04453655', 'toilet'),
  c(72, 'tv', 'electronic', 'n04413042', 'tv'),
  c(73, 'laptop', 'electronic', 'n03648120', 'laptop'),
  c(74, 'mouse', 'electronic', 'n03799022', 'computer_mouse'),
  c(75, 'remote', 'electronic', 'n04082075', 'remote'),
  c(76, 'keyboard', 'electronic', 'n03089055', 'computer_keyboard'),
  c(77, 'cell phone', 'electronic', 'n02995984', 'cellular_telephone'),
  c(78, 'microwave', 'appliance', 'n03766619', 'microwave_oven'),
  c(79, 'oven', 'appliance', 'n03868196', 'oven'),
  c(80, 'toaster', 'appliance', 'n04449446', 'toaster'),
  c(81, 'sink', 'appliance', 'n04230655', 'sink'),
  c(82, 'refrigerator', 'appliance', 'n04077839', 'refrigerator'),
  c(84, 'book', 'indoor', 'n02873453', 'book'),
  c(85, 'clock', 'indoor', 'n03050242', 'clock'),
  c(86, 'vase', 'indoor', 'n04529463', 'vase'),
  c(87, 'scissors', 'indoor', 'n04155119', 'scissors'),
  c(88, 'teddy bear', 'indoor', 'n04406517', 'teddy_bear'),
  c(89, 'hair drier', 'indoor', 'n03488399', 'hair_drier'),
  c(90, 'toothbrush', 'indoor', 'n04460427', 'toothbrush'),
];

/** COCO category by COCO name ("sports ball"), or undefined. */
export function cocoCategoryByName(name: string): CocoCategory | undefined {
  return COCO_CATEGORIES.find((cat) => cat.name === name);
}

/**
 * Scene contexts of COCO-like images: groups of supercategories whose objects appear together, so that
 * COCO-like scenes have COCO's co-occurrence (the dining table with cups and pizza, the street with cars
 * and traffic lights; CC3M §5.3 blames it for COCO-trained models' hallucinations). COCO reports the
 * co-occurrence, not its process: the groups are cckit's. `person` is in none: COCO's most frequent category is
 * seen with all the others, so it comes from the draws over all of COCO (by web share).
 */
export const COCO_SCENE_CONTEXTS: Readonly<Record<string, readonly string[]>> = {
  street: ['vehicle', 'outdoor', 'accessory'],
  meal: ['kitchen', 'food', 'furniture'],
  home: ['furniture', 'electronic', 'appliance', 'indoor'],
  sports: ['sports', 'accessory'],
  animals: ['animal', 'outdoor'],
};
