/**
 * A button whose action runs only after a confirmation dialog (revoke, regenerate, delete).
 */
import { useState, type ReactElement, type ReactNode } from 'react';
import { Button, Dialog, IconButton, type ButtonProps } from '@strapi/design-system';
import { ConfirmDialog } from '@strapi/strapi/admin';

type ConfirmButtonProps = {
  label: string;
  title: string;
  body: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void> | void;
  icon?: ReactElement;
  variant?: ButtonProps['variant'];
  confirmVariant?: ButtonProps['variant'];
  disabled?: boolean;
  testId?: string;
  /** Only the icon, with the label as its accessible name (in table rows). */
  iconOnly?: boolean;
};

export const ConfirmButton = ({
  label,
  title,
  body,
  confirmLabel,
  onConfirm,
  icon,
  variant = 'tertiary',
  confirmVariant = 'danger-light',
  disabled,
  testId,
  iconOnly = false,
}: ConfirmButtonProps) => {
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);

  const confirm = async () => {
    setBusy(true);
    try {
      await onConfirm();
    } finally {
      setBusy(false);
      setOpen(false);
    }
  };

  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger>
        {iconOnly && icon ? (
          <IconButton label={label} variant="ghost" disabled={disabled} data-testid={testId}>
            {icon}
          </IconButton>
        ) : (
          <Button startIcon={icon} variant={variant} size="S" disabled={disabled} data-testid={testId}>
            {label}
          </Button>
        )}
      </Dialog.Trigger>
      <ConfirmDialog
        title={title}
        endAction={
          <Button fullWidth variant={confirmVariant} startIcon={icon} loading={busy} onClick={confirm}>
            {confirmLabel}
          </Button>
        }
      >
        {body}
      </ConfirmDialog>
    </Dialog.Root>
  );
};
