/**
 * The ONE contract between the UI and the engine. Every command is declared once here: its input as a zod schema
 * (validated at the boundary, on the engine side) and its output as a type. A single handler table in the main
 * process implements it (src/main/api/handlers.ts); Electron IPC and the WebSocket bridge of the browser shell are
 * two thin transports over that table. Events flow the other way.
 *
 * Its parts live in src/shared/api/: records.ts (what commands and events carry), commands.ts (inputs), outputs.ts,
 * events.ts (events, the UI's view of the API, the wire frames). Import them from here.
 */

export * from './api/records.js';
export * from './api/commands.js';
export * from './api/outputs.js';
export * from './api/events.js';
