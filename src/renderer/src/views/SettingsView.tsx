import type { JSX } from 'react'
import { UnderConstruction } from './UnderConstruction'

/** The Settings view (placeholder until it is built). */
export function SettingsView(): JSX.Element {
  return <UnderConstruction />
}
