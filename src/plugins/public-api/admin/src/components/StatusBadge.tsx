import type { ReactNode } from 'react';
import { Badge } from '@strapi/design-system';

type Tone = 'success' | 'warning' | 'danger';

/**
 * A coloured badge that meets 4.5:1: the design system's variants put *700 text on *200 (danger 3.9:1,
 * warning 3.5:1), so the tone is drawn by hand on the lightest shade, warning with neutral text.
 */
const COLORS: Record<Tone, { textColor: string; backgroundColor: string }> = {
  success: { textColor: 'success700', backgroundColor: 'success100' },
  warning: { textColor: 'neutral800', backgroundColor: 'warning100' },
  danger: { textColor: 'danger700', backgroundColor: 'danger100' },
};

export const StatusBadge = ({ tone, size = 'M', children }: { tone: Tone; size?: 'S' | 'M'; children: ReactNode }) => (
  <Badge size={size} textColor={COLORS[tone].textColor} backgroundColor={COLORS[tone].backgroundColor}>
    {children}
  </Badge>
);
