import './styles.css'; // first: the views' own stylesheets (imported by their components) refine it
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { createApi } from './api/client';
import { connectStores } from './stores/connection';

const container = document.getElementById('root');
if (!container) throw new Error('mcp-rewind: #root element missing from index.html');

connectStores(createApi());

createRoot(container).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
