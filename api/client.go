package api

import (
	"context"
	"net/http"

	"github.com/danielgtaylor/huma/v2"

	"github.com/auditd/auditd/intake"
)

// ClientConfig is what a browser client (the dashboard) needs to sign users
// in. None of it is secret: the dashboard is a public OIDC client.
type ClientConfig struct {
	AuthDev  bool          `json:"auth_dev" doc:"The development issuer is on (AUTH_DEV=true): sign in by picking a user and roles with POST /dev-oidc/token instead of OIDC"`
	Issuer   string        `json:"issuer" doc:"The OIDC issuer whose access tokens the API accepts" example:"https://idp.example.com/realms/contact-centre"`
	ClientID string        `json:"client_id" doc:"The dashboard's client id at the issuer (OIDC_WEB_CLIENT_ID); empty when OIDC sign-in is not configured"`
	Audience string        `json:"audience" doc:"The audience the access tokens must carry (OIDC_AUDIENCE)"`
	Scopes   string        `json:"scopes" doc:"Space-separated scopes to request (OIDC_WEB_SCOPES)" example:"openid profile email offline_access"`
	RiverUI  bool          `json:"river_ui" doc:"River UI is served at /riverui/ (RIVER_UI); admins open it with POST /admin/riverui/session"`
	Speech   intake.Speech `json:"speech" doc:"What calls are transcribed with and in which languages; an upload refuses a call in another"`
}

type clientResource struct {
	config ClientConfig
}

func (c *clientResource) register(api huma.API) {
	if c.config.Speech.Languages == nil {
		c.config.Speech.Languages = []string{} // any language: [], never null
	}
	huma.Register(api, huma.Operation{
		OperationID: "get-client-config", Method: http.MethodGet, Path: "/client-config",
		Summary: "Sign-in settings for browser clients",
		Description: "Public. What the dashboard needs to sign users in: the OIDC issuer, its client id, audience and " +
			"scopes (authorization code flow with PKCE), or, with AUTH_DEV=true, that the development sign-in is on; " +
			"whether River UI is served; the speech engine and the languages it transcribes.",
		Tags:     []string{"dashboard"},
		Errors:   []int{http.StatusTooManyRequests},
		Security: public,
	}, func(context.Context, *struct{}) (*Output[ClientConfig], error) {
		return ok(c.config), nil
	})
}
