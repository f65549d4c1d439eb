import apiV2 from './api-v2';
import operations from './operations';

export default {
  'api-v2': apiV2,
  operations,
};
