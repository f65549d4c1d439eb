/**
 * The state of a key's form (details and grants) and the errors the server reported for it: field
 * errors from the last save, and grant errors from the live preview, which validates as saving does.
 */
import { useCallback, useMemo, useState } from 'react';
import { useNotification } from '@strapi/strapi/admin';
import type { AdminKey, GrantsInput, KeyCache, KeyDetailsInput, KeyLimits } from '../../../../shared/contracts/keys';
import type { CommandSummary, ResourceSummary } from '../../../../shared/contracts/registry';
import type { KeyDetails } from '../../components/KeyDetailsFields';
import { useT } from '../../hooks/useT';
import { errorsUnder, type FieldErrors } from '../../utils/errors';
import { expiresAtFor } from '../../utils/expiry';
import { EMPTY_GRANTS, danglingCommands, danglingResources, sameGrants, sentOriginIndex, toInput, type Draft } from '../../utils/grants';

const GRANT_ROOTS = ['resources', 'commands', 'origins'];
const isGrantPath = (path: string) => GRANT_ROOTS.some((root) => path === root || path.startsWith(`${root}.`));

const detailsOf = (key: AdminKey | undefined): KeyDetails => ({
  name: key?.name ?? '',
  description: key?.description ?? '',
  // An existing key keeps its expiry as it is (to the minute) until another choice is made.
  expiry: key ? (key.expiresAt ? 'current' : 'never') : '30',
  customDate: undefined,
  limitRequests: key?.limits ? String(key.limits.requests) : '',
  limitWindow: key?.limits ? String(key.limits.window) : '',
  sharedMaxAge: key?.cache ? String(key.cache.sharedMaxAge) : '',
  preview: key?.preview ?? false,
});

/** The limit as typed -> as sent: both empty is the default (null); anything else is sent for the server to judge. */
const limitsOf = (details: KeyDetails): KeyLimits | null => {
  if (details.limitRequests.trim() === '' && details.limitWindow.trim() === '') return null;
  const number = (text: string) => (/^\s*\d+\s*$/.test(text) ? Number(text) : Number.NaN);
  return { requests: number(details.limitRequests), window: number(details.limitWindow) };
};

/** The cache policy as typed -> as sent: empty is none (null); anything else is sent for the server to judge. */
const cacheOf = (details: KeyDetails): KeyCache | null => {
  if (details.sharedMaxAge.trim() === '') return null;
  return { sharedMaxAge: /^\s*\d+\s*$/.test(details.sharedMaxAge) ? Number(details.sharedMaxAge) : Number.NaN };
};

const sameLimits = (a: KeyLimits | null, b: KeyLimits | null) => a?.requests === b?.requests && a?.window === b?.window;

/** The error paths a detail's input answers for: typing in it clears the server's message about it. */
const ERROR_PATHS: Record<keyof KeyDetails, string[]> = {
  name: ['name'],
  description: ['description'],
  expiry: ['expiresAt'],
  customDate: ['expiresAt'],
  limitRequests: ['limits', 'limits.requests'],
  limitWindow: ['limits', 'limits.window'],
  sharedMaxAge: ['cache', 'cache.sharedMaxAge'],
  preview: ['preview'],
};

export const useKeyForm = (key: AdminKey | undefined, resources: ResourceSummary[], commands: CommandSummary[]) => {
  const [details, setDetailsState] = useState<KeyDetails>(() => detailsOf(key));
  const [draft, setDraft] = useState<Draft>(() => key?.grants ?? EMPTY_GRANTS);
  const [saveErrors, setSaveErrors] = useState<FieldErrors>({});
  const [liveGrantErrors, setLiveGrantErrors] = useState<FieldErrors>({});

  const grants: GrantsInput = useMemo(() => toInput(draft, resources, commands), [draft, resources, commands]);
  // Grants on what no longer exists (a removed publication, a command the application stopped registering).
  const dangling = useMemo(
    () => [...danglingResources(draft, resources), ...danglingCommands(draft, commands)],
    [draft, resources, commands],
  );

  /** The server numbers origins as sent (blank rows are not sent); the form shows them by row. */
  const errors: FieldErrors = useMemo(() => {
    const merged: FieldErrors = {};
    for (const [path, message] of Object.entries(saveErrors)) if (!isGrantPath(path)) merged[path] = message;
    const grantErrors = { ...Object.fromEntries(Object.entries(saveErrors).filter(([path]) => isGrantPath(path))), ...liveGrantErrors };
    const rows = sentOriginIndex(draft.origins);
    for (const [path, message] of Object.entries(grantErrors)) {
      const origin = /^origins\.(\d+)$/.exec(path);
      if (origin) merged[`origins.${rows.get(Number(origin[1])) ?? origin[1]}`] = message;
      else merged[path] = message;
    }
    return merged;
  }, [saveErrors, liveGrantErrors, draft.origins]);

  /** A changed detail's save error is stale: it said what was wrong with the value that is gone. */
  const setDetails = useCallback((next: KeyDetails) => {
    setDetailsState((previous) => {
      const changed = (Object.keys(ERROR_PATHS) as (keyof KeyDetails)[]).filter((name) => previous[name] !== next[name]);
      const stale = new Set(changed.flatMap((name) => ERROR_PATHS[name]));
      if (stale.size) setSaveErrors((errors) => Object.fromEntries(Object.entries(errors).filter(([path]) => !stale.has(path))));
      return next;
    });
  }, []);

  /** Origin rows left empty, by row: saving refuses them rather than dropping them unseen. */
  const blankOrigins = draft.origins.flatMap((origin, index) => (origin.trim() === '' ? [index] : []));
  const [blankChecked, setBlankChecked] = useState(false);

  const onValidated = useCallback((next: FieldErrors) => {
    setLiveGrantErrors(Object.fromEntries(Object.entries(next).filter(([path]) => isGrantPath(path))));
    // A valid preview clears the grant errors of the last save.
    setSaveErrors((previous) => Object.fromEntries(Object.entries(previous).filter(([path]) => !isGrantPath(path))));
  }, []);

  const expiresAt = expiresAtFor(details.expiry, details.customDate, new Date(), key?.expiresAt ?? null);

  /** The details as the server takes them; for an existing key only what changed. */
  const detailsInput = (): Partial<KeyDetailsInput> => {
    const input: Partial<KeyDetailsInput> = {};
    if (!key || details.name !== key.name) input.name = details.name;
    if (!key || details.description !== (key.description ?? ''))
      input.description = details.description === '' ? null : details.description;
    const expiryUnchanged = key && (details.expiry === 'current' || (details.expiry === 'never' && key.expiresAt === null));
    if (!expiryUnchanged) input.expiresAt = expiresAt;
    const limits = limitsOf(details);
    if (!key || !sameLimits(limits, key.limits)) input.limits = limits;
    const cache = cacheOf(details);
    if (!key || cache?.sharedMaxAge !== key.cache?.sharedMaxAge) input.cache = cache;
    if (!key || details.preview !== key.preview) input.preview = details.preview;
    return input;
  };

  const t = useT();
  const { toggleNotification } = useNotification();
  const missingDate = details.expiry === 'custom' && !details.customDate;
  /**
   * What the form checks before it sends: a custom expiry needs its date, and no origin row may be blank
   * (it used to be dropped unseen). False, with the reason under the field or notified, when it is not ready.
   */
  const readyToSave = (): boolean => {
    if (missingDate) {
      setSaveErrors({ expiresAt: t('key.expiry.date.missing', 'Choose the date the key expires on.') });
      return false;
    }
    setBlankChecked(blankOrigins.length > 0);
    if (blankOrigins.length > 0) {
      toggleNotification({ type: 'danger', message: t('form.invalid', 'Some values are not valid: see the messages under the fields.') });
      return false;
    }
    return true;
  };

  const isDirty = !key || Object.keys(detailsInput()).length > 0 || !sameGrants(draft, key.grants) || dangling.length > 0;

  return {
    details,
    setDetails,
    draft,
    setDraft,
    grants,
    dangling,
    errors,
    originErrors: errorsUnder(errors, 'origins'),
    /** Blank origin rows to flag: after a save was refused because of them, until they are filled or removed. */
    flaggedBlankOrigins: blankChecked ? blankOrigins : [],
    readyToSave,
    setSaveErrors,
    onValidated,
    detailsInput,
    isDirty,
    reset: (saved: AdminKey) => {
      setDetails(detailsOf(saved));
      setDraft(saved.grants);
      setSaveErrors({});
      setBlankChecked(false);
    },
  };
};

export type KeyForm = ReturnType<typeof useKeyForm>;
