import { Typography } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import { relativeTime } from '../utils/dates';

/** A date, or a relative time ("3 hours ago") with the exact time as a tooltip; a dash when there is none. */
export const DateText = ({ value, relative = false, empty = '—' }: { value: string | null; relative?: boolean; empty?: string }) => {
  const { formatDate, formatRelativeTime } = useIntl();
  if (!value) return <Typography textColor="neutral600">{empty}</Typography>;
  const exact = formatDate(value, { dateStyle: 'medium', timeStyle: 'short' });
  if (!relative) {
    return (
      <Typography textColor="neutral800" title={exact}>
        <time dateTime={value}>{formatDate(value, { dateStyle: 'medium' })}</time>
      </Typography>
    );
  }
  const { value: amount, unit } = relativeTime(value);
  return (
    <Typography textColor="neutral800" title={exact}>
      <time dateTime={value}>{formatRelativeTime(amount, unit, { numeric: 'auto' })}</time>
    </Typography>
  );
};
