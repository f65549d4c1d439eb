import { Typography } from '@strapi/design-system';
import { styled } from 'styled-components';

/** Key prefixes, secrets and code: a monospace face, wrapping anywhere. */
export const Mono = styled(Typography)`
  font-family: 'SFMono-Regular', Menlo, Consolas, 'Liberation Mono', 'DejaVu Sans Mono', monospace;
  word-break: break-all;
`;

export const MONO_FONT = `'SFMono-Regular', Menlo, Consolas, 'Liberation Mono', 'DejaVu Sans Mono', monospace`;
