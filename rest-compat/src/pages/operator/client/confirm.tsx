import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A destructive action's confirmation: a modal <dialog> that says what will happen before it is
 * done. Open while `open`; Cancel (or Escape) calls onCancel, the action button onConfirm.
 */
export function Confirm({
  open,
  idPrefix = 'confirm',
  title,
  children,
  action,
  danger = true,
  busy,
  onConfirm,
  onCancel,
}: {
  open: boolean;
  /** Its elements' ids: `<prefix>-dialog`, `-title`, `-effect`, `-cancel`, `-ok` (one page may hold two). */
  idPrefix?: string;
  title: string;
  children: ComponentChildren;
  action: string;
  danger?: boolean;
  busy: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog
      ref={dialog}
      id={`${idPrefix}-dialog`}
      aria-labelledby={`${idPrefix}-title`}
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={`${idPrefix}-title`}>{title}</h2>
      <div id={`${idPrefix}-effect`}>{children}</div>
      <div class="dialog-actions">
        <button type="button" class="secondary" id={`${idPrefix}-cancel`} onClick={onCancel}>
          Cancel
        </button>
        <button type="button" id={`${idPrefix}-ok`} class={danger ? 'danger' : ''} disabled={busy} onClick={onConfirm}>
          {action}
        </button>
      </div>
    </dialog>
  );
}
