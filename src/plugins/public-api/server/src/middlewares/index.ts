import apiV2 from './api-v2';
import operations from './operator';

export default {
  'api-v2': apiV2,
  operations,
};
