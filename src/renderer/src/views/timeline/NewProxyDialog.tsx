import { useCallback, useEffect, useRef, useState, type FormEvent, type JSX, type RefObject } from 'react';
import type { ProxyField } from '../../../../shared/proxy-config.js';
import { draftConfig, EMPTY_DRAFT, fieldOf, type ProxyDraft } from '../../models/proxy-draft.js';
import { usePanels } from '../../stores/panels.js';
import { useProxies } from '../../stores/proxies.js';
import { useSettings } from '../../stores/settings.js';
import { ProxyFields, type ProxyForm } from './ProxyFields.js';

/** The engine's refusal of a Create, and the field it names (if any). */
type Refusal = { field?: ProxyField; message: string };

interface ProxyFormState extends ProxyForm {
  /** the draft as proxies.create input, and its problems by field */
  checked: ReturnType<typeof draftConfig>;
  /** the engine's refusal when it names no field */
  formRefusal?: string;
  reset(): void;
  markSubmitted(): void;
  refuse(refusal: Refusal | undefined): void;
}

/** The form's state: the draft, the fields left so far, whether Create was pressed, and the engine's last refusal. */
function useProxyForm(): ProxyFormState {
  const [draft, setDraft] = useState<ProxyDraft>(EMPTY_DRAFT);
  const [touched, setTouched] = useState<Partial<Record<ProxyField, boolean>>>({});
  const [submitted, setSubmitted] = useState(false);
  const [refusal, setRefusal] = useState<Refusal>();
  const reset = useCallback(() => {
    setDraft(EMPTY_DRAFT);
    setTouched({});
    setSubmitted(false);
    setRefusal(undefined);
  }, []);
  const checked = draftConfig(draft);
  return {
    draft,
    checked,
    formRefusal: refusal && !refusal.field ? refusal.message : undefined,
    set: (patch) => {
      setDraft((d) => ({ ...d, ...patch }));
      setRefusal(undefined);
    },
    problem: (field) => {
      if (refusal?.field === field) return refusal.message.replace(/^[^:]*?: /, '');
      return submitted || touched[field] ? checked.issues[field] : undefined;
    },
    leave: (field) => setTouched((t) => ({ ...t, [field]: true })),
    reset,
    markSubmitted: () => setSubmitted(true),
    refuse: setRefusal,
  };
}

/** The native <dialog> follows the store's `open`, as a modal; each opening starts afresh. */
function useModal(dialog: RefObject<HTMLDialogElement | null>, open: boolean, onOpen: () => void): void {
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (open && !el.open) {
      onOpen();
      el.showModal();
    } else if (!open && el.open) el.close();
  }, [dialog, open, onOpen]);
}

/**
 * "New proxy" in a modal dialog (the native <dialog>: focus stays inside, Esc closes). Each field says what is wrong
 * beside it as soon as it was left (or on Create); the engine's own refusal lands beside the field it names.
 */
export function NewProxyDialog(): JSX.Element {
  const open = usePanels((s) => s.newProxy);
  const setOpen = usePanels((s) => s.setNewProxy);
  const create = useProxies((s) => s.create);
  const defaultDir = useSettings((s) => s.settings?.defaultCacheDir);
  const dialog = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const form = useProxyForm();
  useModal(dialog, open, form.reset);

  async function submit(event: FormEvent): Promise<void> {
    event.preventDefault();
    form.markSubmitted();
    if (Object.keys(form.checked.issues).length > 0) {
      dialog.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
      return;
    }
    setBusy(true);
    form.refuse(undefined);
    try {
      await create(form.checked.config); // a proxy that cannot start is created all the same: listed as failed, with the reason
      setOpen(false);
    } catch (e) {
      const message = (e as Error).message;
      form.refuse({ field: fieldOf(message), message });
    } finally {
      setBusy(false);
    }
  }

  return (
    <dialog ref={dialog} className="modal" aria-labelledby="np-title" onClose={() => setOpen(false)}>
      <form aria-label="New proxy" noValidate onSubmit={(e) => void submit(e)}>
        <h2 id="np-title">New proxy</h2>
        <ProxyFields form={form} defaultDir={defaultDir} />
        {form.formRefusal && (
          <p role="alert" className="error">
            {form.formRefusal}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" onClick={() => setOpen(false)}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Starting…' : 'Create proxy'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
