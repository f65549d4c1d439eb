/**
 * A product SKU identifies one product: no other document may carry it. The locales of one
 * document share their SKU (it is not localized), so they never conflict with each other.
 *
 * Other documents count in any state, draft or published: a SKU still live on another product's
 * published version is taken even when that product's draft has moved on, so publishing or
 * discarding a draft can never create a duplicate.
 */
import type { Violation } from '../violations';
import { textOf } from '../values';
import type { DomainRule } from './types';

export const PRODUCT_UID = 'api::product.product';

export const checkUniqueSku = (sku: string, holders: readonly string[]): Violation[] =>
  holders.length === 0
    ? []
    : [{ path: ['sku'], message: 'This SKU is already used by another product.', quote: { field: 'sku', value: sku } }];

export const uniqueSkuRule: DomainRule = {
  name: 'unique-sku',
  contentTypes: [PRODUCT_UID],
  fields: ['sku'],
  check: async (record, { contentType, documentId, lookups }) => {
    const sku = textOf(record.sku);
    if (sku === null) return [];
    return checkUniqueSku(sku, await lookups.documentsWithValue(contentType, 'sku', sku, documentId));
  },
};
