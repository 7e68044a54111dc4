import { strict as assert } from 'node:assert';
import { before, test } from 'node:test';
import * as tf from '@tensorflow/tfjs';
import { initBackend } from '../src/tf/backend';
import { LayerContext, MultiHeadAttention } from '../src/models/layers';
import { DEFAULT_MATCHING, MatchingModel } from '../src/models/matching';
import { Params, SeededDropout } from '../src/models/params';
import { DEFAULT_TRANSFORMER, TransformerCaptioner } from '../src/models/transformer';

before(async () => {
  await initBackend({ logger: () => undefined });
});

// Parameter names are checkpoint names, and each parameter's init seed follows its creation order:
// both are part of the models' contract (checkpoints written before the shared layers must load).

const TRANSFORMER_NAMES =
  'visual_proj_w visual_proj_b geometry_proj_w geometry_proj_b word_emb enc_pos dec_pos segment_emb ' +
  'enc0_ln1_g enc0_ln1_b enc0_self_qkv_w enc0_self_qkv_b enc0_self_o_w enc0_self_o_b enc0_ln3_g enc0_ln3_b enc0_ff1_w enc0_ff1_b enc0_ff2_w enc0_ff2_b enc_ln_g enc_ln_b ' +
  'dec0_ln1_g dec0_ln1_b dec0_self_qkv_w dec0_self_qkv_b dec0_self_o_w dec0_self_o_b dec0_ln2_g dec0_ln2_b dec0_cross_q_w dec0_cross_q_b dec0_cross_kv_w dec0_cross_kv_b dec0_cross_o_w dec0_cross_o_b dec0_ln3_g dec0_ln3_b dec0_ff1_w dec0_ff1_b dec0_ff2_w dec0_ff2_b ' +
  'dec1_ln1_g dec1_ln1_b dec1_self_qkv_w dec1_self_qkv_b dec1_self_o_w dec1_self_o_b dec1_ln2_g dec1_ln2_b dec1_cross_q_w dec1_cross_q_b dec1_cross_kv_w dec1_cross_kv_b dec1_cross_o_w dec1_cross_o_b dec1_ln3_g dec1_ln3_b dec1_ff1_w dec1_ff1_b dec1_ff2_w dec1_ff2_b ' +
  'dec_ln_g dec_ln_b out_w out_b moc_w moc_b';

const MATCHING_NAMES =
  'img_visual_proj_w img_visual_proj_b img_geometry_proj_w img_geometry_proj_b ' +
  'img_enc0_ln1_g img_enc0_ln1_b img_enc0_self_qkv_w img_enc0_self_qkv_b img_enc0_self_o_w img_enc0_self_o_b img_enc0_ln2_g img_enc0_ln2_b img_enc0_ff1_w img_enc0_ff1_b img_enc0_ff2_w img_enc0_ff2_b img_ln_g img_ln_b ' +
  'txt_word_emb txt_pos ' +
  'txt_enc0_ln1_g txt_enc0_ln1_b txt_enc0_self_qkv_w txt_enc0_self_qkv_b txt_enc0_self_o_w txt_enc0_self_o_b txt_enc0_ln2_g txt_enc0_ln2_b txt_enc0_ff1_w txt_enc0_ff1_b txt_enc0_ff2_w txt_enc0_ff2_b txt_ln_g txt_ln_b ' +
  'img_head_w img_head_b txt_head_w txt_head_b logit_scale';

test('the Transformer captioner keeps its parameter names and creation order', () => {
  const model = new TransformerCaptioner({ ...DEFAULT_TRANSFORMER, vocabSize: 40, visualDim: 16, geometryDim: 5, mocClasses: 8, seed: 0 });
  assert.deepEqual([...model.variables().keys()], TRANSFORMER_NAMES.split(' '));
  model.dispose();
});

test('the matching model keeps its parameter names and creation order', () => {
  const model = new MatchingModel({ ...DEFAULT_MATCHING, vocabSize: 30, visualDim: 16, geometryDim: 5, seed: 0 });
  assert.deepEqual([...model.variables().keys()], MATCHING_NAMES.split(' '));
  model.dispose();
});

test('an attention layer used as the other kind is an error', () => {
  const params = new Params(tf, 1, 'test');
  const ctx: LayerContext = { tf, params, dropout: new SeededDropout(tf, 1, 0, 0) };
  const self = new MultiHeadAttention(ctx, 'a', { dModel: 8, heads: 2 }, 'self');
  const cross = new MultiHeadAttention(ctx, 'b', { dModel: 8, heads: 2 }, 'cross');
  assert.deepEqual([...params.keys()], ['a_qkv_w', 'a_qkv_b', 'a_o_w', 'a_o_b', 'b_q_w', 'b_q_b', 'b_kv_w', 'b_kv_b', 'b_o_w', 'b_o_b']);
  tf.tidy(() => {
    const x = tf.ones([1, 3, 8]) as tf.Tensor3D;
    assert.throws(() => self.cross(x, x, tf.zeros([1, 1, 1, 3])), /a: not a cross-attention layer/);
    assert.throws(() => cross.self(x, tf.zeros([1, 1, 3, 3])), /b: not a self-attention layer/);
    assert.deepEqual(self.self(x, tf.zeros([1, 1, 3, 3])).shape, [1, 3, 8]);
    assert.deepEqual(cross.cross(x, x, tf.zeros([1, 1, 1, 3])).shape, [1, 3, 8]);
  });
  assert.throws(() => new MultiHeadAttention(ctx, 'c', { dModel: 9, heads: 2 }, 'self'), /not divisible/);
  params.disposeAll();
});
