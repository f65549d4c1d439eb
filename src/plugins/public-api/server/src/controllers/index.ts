import admin from './admin';

// Strapi's controllers: the admin panel's, dispatched by Strapi's router (routes/admin.ts). The /api/v2
// handlers are in handlers/ and are dispatched by the api-v2 middleware, not by Strapi.
export default {
  ...admin,
};
