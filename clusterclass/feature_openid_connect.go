package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// VarOpenIDConnect configures kube-apiserver's OIDC authenticator (oidc_*
// labels); it is enabled by a non-empty issuer URL.
const VarOpenIDConnect = "openidConnect"

func openIDConnect() Feature {
	prop := func(desc string) clusterv1.JSONSchemaProps {
		return clusterv1.JSONSchemaProps{Type: "string", Description: desc}
	}
	arg := func(name, field string) clusterv1.JSONPatch {
		return fromTemplate("add", kcpAPIServerArgs, `{"name": "`+name+`", "value": {{ .openidConnect.`+field+` | toJson }}}`)
	}
	return Feature{
		Name:   "openid_connect",
		Values: openIDConnectValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarOpenIDConnect, clusterv1.JSONSchemaProps{
				Type:        "object",
				Description: "OpenID Connect authentication of the Kubernetes API.",
				Default: jsonValue(map[string]string{"issuerUrl": "", "clientId": "", "usernameClaim": "sub", "usernamePrefix": "-",
					"groupsClaim": "", "groupsPrefix": ""}),
				Properties: map[string]clusterv1.JSONSchemaProps{
					"issuerUrl":      prop("Issuer URL (oidc_issuer_url); empty disables OIDC."),
					"clientId":       prop("Client ID (oidc_client_id)."),
					"usernameClaim":  prop("Claim used as the user name (oidc_username_claim)."),
					"usernamePrefix": prop("Prefix of user names (oidc_username_prefix); - for none."),
					"groupsClaim":    prop("Claim holding the groups (oidc_groups_claim); empty for none."),
					"groupsPrefix":   prop("Prefix of group names (oidc_groups_prefix)."),
				},
			}),
		},
		Patches: []clusterv1.ClusterClassPatch{
			{
				Name:      "openidConnect",
				EnabledIf: `{{ ne .openidConnect.issuerUrl "" }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(),
					arg("oidc-issuer-url", "issuerUrl"),
					arg("oidc-client-id", "clientId"),
					arg("oidc-username-claim", "usernameClaim"),
					arg("oidc-username-prefix", "usernamePrefix"),
				)},
			},
			// Fix over the reference: no empty --oidc-groups-claim= or
			// --oidc-groups-prefix= flags when the labels are unset.
			{
				Name:        "openidConnectGroupsClaim",
				EnabledIf:   `{{ and (ne .openidConnect.issuerUrl "") (ne .openidConnect.groupsClaim "") }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(), arg("oidc-groups-claim", "groupsClaim"))},
			},
			{
				Name:        "openidConnectGroupsPrefix",
				EnabledIf:   `{{ and (ne .openidConnect.issuerUrl "") (ne .openidConnect.groupsPrefix "") }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(), arg("oidc-groups-prefix", "groupsPrefix"))},
			},
		},
	}
}

func openIDConnectValues(in *Inputs) (map[string]any, error) {
	l := in.Labels
	return map[string]any{VarOpenIDConnect: map[string]any{
		"issuerUrl": l[schemas.LabelOIDCIssuerURL], "clientId": l[schemas.LabelOIDCClientID],
		"usernameClaim": l[schemas.LabelOIDCUsernameClaim], "usernamePrefix": l[schemas.LabelOIDCUsernamePrefix],
		"groupsClaim": l[schemas.LabelOIDCGroupsClaim], "groupsPrefix": l[schemas.LabelOIDCGroupsPrefix],
	}}, nil
}
