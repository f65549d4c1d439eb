import { Typography } from '@strapi/design-system';
import { useIntl } from 'react-intl';
import { relativeTime } from '../utils/dates';

type Props = {
  value: string | null;
  relative?: boolean;
  /** The time of day too (an expiry is to the minute), not only in the tooltip. */
  withTime?: boolean;
  empty?: string;
  variant?: 'omega' | 'pi';
};

/** A date, or a relative time ("3 hours ago") with the exact time as a tooltip; a dash when there is none. */
export const DateText = ({ value, relative = false, withTime = false, empty = '—', variant = 'omega' }: Props) => {
  const { formatDate, formatRelativeTime } = useIntl();
  if (!value) {
    return (
      <Typography variant={variant} textColor="neutral600">
        {empty}
      </Typography>
    );
  }
  const exact = formatDate(value, { dateStyle: 'medium', timeStyle: 'short' });
  if (!relative) {
    return (
      <Typography variant={variant} textColor="neutral800" title={exact}>
        <time dateTime={value}>{withTime ? exact : formatDate(value, { dateStyle: 'medium' })}</time>
      </Typography>
    );
  }
  const { value: amount, unit } = relativeTime(value);
  return (
    <Typography variant={variant} textColor="neutral800" title={exact}>
      <time dateTime={value}>{formatRelativeTime(amount, unit, { numeric: 'auto' })}</time>
    </Typography>
  );
};
