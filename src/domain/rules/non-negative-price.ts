/**
 * Prices are not negative (events and products). Free is fine.
 */
import type { Violation } from '../violations';
import { amountOf } from '../values';
import type { DomainRule } from './types';

export const checkNonNegativePrice = (record: { price?: unknown }): Violation[] => {
  const price = amountOf(record.price);
  return price !== null && price < 0 ? [{ path: ['price'], message: 'A price cannot be negative.' }] : [];
};

export const nonNegativePriceRule: DomainRule = {
  name: 'non-negative-price',
  contentTypes: ['api::event.event', 'api::product.product'],
  fields: ['price'],
  check: (record) => checkNonNegativePrice(record),
};
