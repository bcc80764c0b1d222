package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// VarAuditLog turns kube-apiserver auditing on (audit_log_enabled) with the
// policy every control-plane node carries (base template) and log rotation
// (audit_log_max_age, audit_log_max_backup, audit_log_max_size).
const VarAuditLog = "auditLog"

func auditLog() Feature {
	return Feature{
		Name:   "audit_log",
		Values: auditLogValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarAuditLog, clusterv1.JSONSchemaProps{
				Type:        "object",
				Description: "kube-apiserver audit log.",
				Default:     jsonValue(map[string]any{"enabled": false, "maxAge": 30, "maxBackup": 10, "maxSize": 100}),
				Properties: map[string]clusterv1.JSONSchemaProps{
					"enabled":   {Type: "boolean", Description: "Write the audit log (audit_log_enabled)."},
					"maxAge":    intSchemaNoDefault("Days to keep rotated logs (audit_log_max_age)."),
					"maxBackup": intSchemaNoDefault("Rotated files to keep (audit_log_max_backup)."),
					"maxSize":   intSchemaNoDefault("Size in MB at which the log rotates (audit_log_max_size)."),
				},
			}),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name:      "auditLog",
			EnabledIf: `{{ .auditLog.enabled }}`,
			Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(),
				argValue(kcpAPIServerArgs, "audit-log-path", "/var/log/audit/kube-apiserver-audit.log"),
				fromTemplate("add", kcpAPIServerArgs, `{"name": "audit-log-maxage", "value": "{{ .auditLog.maxAge }}"}`),
				fromTemplate("add", kcpAPIServerArgs, `{"name": "audit-log-maxbackup", "value": "{{ .auditLog.maxBackup }}"}`),
				fromTemplate("add", kcpAPIServerArgs, `{"name": "audit-log-maxsize", "value": "{{ .auditLog.maxSize }}"}`),
				argValue(kcpAPIServerArgs, "audit-policy-file", AuditPolicyPath),
				withValue("add", kcpAPIServer+"/extraVolumes/-", map[string]any{
					"name": "audit-policy", "hostPath": "/etc/kubernetes/audit-policy", "mountPath": "/etc/kubernetes/audit-policy", "readOnly": true,
				}),
				withValue("add", kcpAPIServer+"/extraVolumes/-", map[string]any{
					"name": "audit-logs", "hostPath": "/var/log/kubernetes/audit", "mountPath": "/var/log/audit", "pathType": "DirectoryOrCreate",
				}),
			)},
		}},
	}
}

func auditLogValues(in *Inputs) (map[string]any, error) {
	enabled, err := in.Bool(schemas.LabelAuditLogEnabled)
	if err != nil {
		return nil, err
	}
	log := map[string]any{"enabled": enabled}
	for k, label := range map[string]string{"maxAge": schemas.LabelAuditLogMaxAge, "maxBackup": schemas.LabelAuditLogMaxBackup, "maxSize": schemas.LabelAuditLogMaxSize} {
		if log[k], err = in.Int(label); err != nil {
			return nil, err
		}
	}
	return map[string]any{VarAuditLog: log}, nil
}
