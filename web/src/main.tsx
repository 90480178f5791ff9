import { render } from 'preact';
import { App } from './app';
import { AppContext, AppState } from './state';
import './styles.css';

const app = new AppState();
render(
  <AppContext.Provider value={app}>
    <App />
  </AppContext.Provider>,
  document.getElementById('app')!,
);
void app.start();
