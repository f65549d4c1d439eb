import admin from './admin';

// /api/v2 handlers live beside this file but are dispatched by the api-v2 middleware, not by Strapi;
// only the admin panel's routes go through Strapi's router.
export default {
  ...admin,
};
