import type services from '../services';
import { PLUGIN_ID } from '../config';

type Services = typeof services;

/** The one way plugin code reaches another service of the plugin. */
export const getService = <Name extends keyof Services>(name: Name): ReturnType<Services[Name]> =>
  strapi.plugin(PLUGIN_ID).service(name) as ReturnType<Services[Name]>;
