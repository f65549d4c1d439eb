import admin from './admin';

// /api/v2 is served by the api-v2 middleware (see middlewares/api-v2.ts), not by Strapi's router;
// Strapi's router serves only the admin panel's routes.
export default {
  admin,
};
