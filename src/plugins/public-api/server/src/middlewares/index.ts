import apiV2 from './api-v2';

export default {
  'api-v2': apiV2,
};
