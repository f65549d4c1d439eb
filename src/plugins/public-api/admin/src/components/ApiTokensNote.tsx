/**
 * Strapi's own "API Tokens" sit next to these keys in Settings: one line that says which is for what.
 */
import { Link, Typography } from '@strapi/design-system';
import { NavLink } from 'react-router-dom';
import { useT } from '../hooks/useT';

export const ApiTokensNote = () => {
  const t = useT();
  return (
    <Typography variant="pi" textColor="neutral600" data-testid="api-tokens-note">
      {t(
        'keys.tokensNote',
        'API keys are for websites and apps that read or write through the Public Data API (/api/v2), with grants per resource and field, origins and rate limits. For Strapi’s own REST and GraphQL APIs (/api), use',
      )}{' '}
      <Link tag={NavLink} to="/settings/api-tokens">
        {t('keys.tokensNote.link', 'Strapi’s API Tokens')}
      </Link>
      .
    </Typography>
  );
};
