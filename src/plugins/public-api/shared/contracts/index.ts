export * from './errors';
export * from './keys';
export * from './permissions';
export * from './preview';
export * from './registry';
export * from './websites';
export * from './webhooks';
export * from './admin-routes';
