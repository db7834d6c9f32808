// The dashboard: the session gate (sign-in when a token is required), the
// frame, and one route per page (history-API URLs, served by the service's
// index.html fallback).
import { ErrorBoundary, LocationProvider, Route, Router, useLocation } from 'preact-iso'
import { useEffect } from 'preact/hooks'
import { Layout } from './components/Layout.js'
import { AccountPage } from './pages/accounts/AccountPage.js'
import { AccountsPage } from './pages/accounts/AccountsPage.js'
import { EventsPage } from './pages/events/EventsPage.js'
import { ApiKeysPage } from './pages/keys/ApiKeysPage.js'
import { PluginPage } from './pages/plugins/PluginPage.js'
import { PluginsPage } from './pages/plugins/PluginsPage.js'
import { ReportsPage } from './pages/reports/ReportsPage.js'
import { RulePage } from './pages/rules/RulePage.js'
import { RulesPage } from './pages/rules/RulesPage.js'
import { SettingsPage } from './pages/settings/SettingsPage.js'
import { SetupPage } from './pages/signin/SetupPage.js'
import { SignInPage } from './pages/signin/SignInPage.js'
import { SourcesPage } from './pages/sources/SourcesPage.js'
import { NewTransactionPage } from './pages/transactions/NewTransactionPage.js'
import { TransactionPage } from './pages/transactions/TransactionPage.js'
import { TransactionsPage } from './pages/transactions/TransactionsPage.js'
import { UpdatePage } from './pages/update/UpdatePage.js'
import { WebhooksPage } from './pages/webhooks/WebhooksPage.js'
import { authError, authStatus, refreshAuth, signedIn } from './stores/session.js'

function Redirect({ to }: { to: string }) {
  const { route } = useLocation()
  useEffect(() => route(to, true), [to])
  return null
}

function NotFound() {
  return (
    <section>
      <h1>Not found</h1>
      <p>
        There is no page here. <a href="/transactions">Go to the transactions</a>.
      </p>
    </section>
  )
}

function Pages() {
  return (
    <Router>
      <Route path="/" component={() => <Redirect to="/transactions" />} />
      <Route path="/transactions" component={TransactionsPage} />
      <Route path="/transactions/new" component={NewTransactionPage} />
      <Route path="/transactions/:id" component={TransactionPage} />
      <Route path="/accounts" component={AccountsPage} />
      <Route path="/accounts/:id" component={AccountPage} />
      <Route path="/reports" component={ReportsPage} />
      <Route path="/rules" component={RulesPage} />
      <Route path="/rules/:id" component={RulePage} />
      <Route path="/sources" component={SourcesPage} />
      <Route path="/events" component={EventsPage} />
      <Route path="/webhooks" component={WebhooksPage} />
      <Route path="/keys" component={ApiKeysPage} />
      <Route path="/setup" component={SetupPage} />
      <Route path="/settings" component={SettingsPage} />
      <Route path="/plugins" component={PluginsPage} />
      <Route path="/ext/:name" component={PluginPage} />
      <Route path="/update" component={UpdatePage} />
      <Route default component={NotFound} />
    </Router>
  )
}

export function App() {
  useEffect(() => void refreshAuth(), [])
  const status = authStatus.value
  if (status === null) {
    return authError.value ? (
      <div class="centered">
        <div class="card error-note" role="alert">
          <h1>Coffer is not answering</h1>
          <p>{authError.value.detail}</p>
          <button type="button" onClick={() => void refreshAuth()}>
            Try again
          </button>
        </div>
      </div>
    ) : null
  }
  return (
    <LocationProvider>
      <ErrorBoundary>
        {signedIn.value ? (
          <Layout>
            <Pages />
          </Layout>
        ) : (
          <SignInPage />
        )}
      </ErrorBoundary>
    </LocationProvider>
  )
}
