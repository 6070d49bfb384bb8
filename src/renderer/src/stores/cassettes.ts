import { create } from 'zustand';
import type { CassetteEntrySummary, CommandInput, CommandOutput } from '../../../shared/api.js';
import { api } from '../api/current.js';

interface CassettesState {
  /** the open folder, as the engine resolved it */
  dir?: string;
  entries: CassetteEntrySummary[];
  loading: boolean;
  error?: string;
  /** the selected entry's file and its text as last read or saved */
  selected?: string;
  text?: string;
  /** opens a folder (the engine puts it first in the recent folders of the settings); rejects with the engine's message */
  open(dir: string): Promise<void>;
  /** lists the open folder again (hits change as proxies replay) */
  refresh(): Promise<void>;
  select(file: string | undefined): Promise<void>;
  /** writes the selected entry; rejects with the engine's validation message */
  save(text: string): Promise<void>;
  duplicate(file: string): Promise<CassetteEntrySummary>;
  remove(file: string): Promise<void>;
  rename(file: string, key: string): Promise<CassetteEntrySummary>;
}

const upsert = (list: CassetteEntrySummary[], entry: CassetteEntrySummary): CassetteEntrySummary[] => {
  const next = list.filter((e) => e.file !== entry.file);
  next.push(entry);
  return next.sort((a, b) => a.n - b.n || a.file.localeCompare(b.file));
};

export const useCassettes = create<CassettesState>()((set, get) => {
  const folder = (): string => {
    const dir = get().dir;
    if (!dir) throw new Error('open a cassette folder first');
    return dir;
  };
  return {
    entries: [],
    loading: false,
    async open(input) {
      const wanted = input.trim();
      if (!wanted) throw new Error('give a cassette folder');
      set({ loading: true, error: undefined });
      try {
        const { dir, entries } = await api().call('cassettes.list', { dir: wanted, remember: true });
        const keep = get().dir === dir ? get().selected : undefined;
        set({ dir, entries, loading: false, ...(keep ? {} : { selected: undefined, text: undefined }) });
      } catch (error) {
        set({ loading: false, error: (error as Error).message });
        throw error;
      }
    },
    async refresh() {
      const dir = get().dir;
      if (!dir) return;
      try {
        const { entries } = await api().call('cassettes.list', { dir });
        if (get().dir === dir) set({ entries, error: undefined });
      } catch (error) {
        set({ error: (error as Error).message });
      }
    },
    async select(file) {
      if (!file) return set({ selected: undefined, text: undefined });
      set({ selected: file, text: undefined });
      try {
        const { text } = await api().call('cassettes.read', { dir: folder(), file });
        if (get().selected === file) set({ text });
      } catch (error) {
        set({ error: (error as Error).message });
      }
    },
    async save(text) {
      const file = get().selected;
      if (!file) throw new Error('select an entry first');
      const { entry } = await api().call('cassettes.write', { dir: folder(), file, text });
      set((s) => ({ entries: upsert(s.entries, entry), text }));
    },
    async duplicate(file) {
      const { entry } = await api().call('cassettes.duplicate', { dir: folder(), file });
      set((s) => ({ entries: upsert(s.entries, entry) }));
      return entry;
    },
    async remove(file) {
      await api().call('cassettes.delete', { dir: folder(), file });
      set((s) => ({
        entries: s.entries.filter((e) => e.file !== file),
        ...(s.selected === file ? { selected: undefined, text: undefined } : {}),
      }));
    },
    async rename(file, key) {
      const { entry } = await api().call('cassettes.rename', { dir: folder(), file, key });
      set((s) => ({
        entries: upsert(
          s.entries.filter((e) => e.file !== file),
          entry,
        ),
        ...(s.selected === file ? { selected: entry.file } : {}),
      }));
      return entry;
    },
  };
});

/** the Export view's asks: what an export would write (nothing is written), and the export itself */
export const previewExport = (input: CommandInput<'export.preview'>): Promise<CommandOutput<'export.preview'>> =>
  api().call('export.preview', input);
export const runExport = (input: CommandInput<'export.run'>): Promise<CommandOutput<'export.run'>> =>
  api().call('export.run', input);
