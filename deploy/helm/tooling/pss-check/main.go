// pss-check evaluates the pod templates of rendered Kubernetes manifests against a Pod Security Standard
// level with the Pod Security admission controller's own checks (k8s.io/pod-security-admission), so a
// chart is held to what a namespace labelled pod-security.kubernetes.io/enforce=<level> would admit.
//
//	helm template … | pss-check [-level restricted] [-version latest]
//
// It exits 1 when a pod template is forbidden, and when the input holds no pod template at all (a check
// that saw nothing proves nothing).
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/pod-security-admission/api"
	"k8s.io/pod-security-admission/policy"
	"sigs.k8s.io/yaml"
)

type podTemplate struct {
	source string
	meta   metav1.ObjectMeta
	spec   corev1.PodSpec
}

func main() {
	level := flag.String("level", "restricted", "Pod Security Standard level: privileged, baseline or restricted")
	version := flag.String("version", "latest", "policy version (latest, or v1.N)")
	flag.Parse()
	if err := run(os.Stdin, os.Stdout, *level, *version); err != nil {
		fmt.Fprintln(os.Stderr, "pss-check:", err)
		os.Exit(1)
	}
}

func run(in io.Reader, out io.Writer, levelName, versionName string) error {
	level, err := api.ParseLevel(levelName)
	if err != nil {
		return err
	}
	version, err := api.ParseVersion(versionName)
	if err != nil {
		return err
	}
	evaluator, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		return err
	}
	templates, err := readPodTemplates(in)
	if err != nil {
		return err
	}
	if len(templates) == 0 {
		return errors.New("no pod template in the input")
	}
	forbidden := 0
	for _, t := range templates {
		result := policy.AggregateCheckResults(evaluator.EvaluatePod(api.LevelVersion{Level: level, Version: version}, &t.meta, &t.spec))
		if result.Allowed {
			fmt.Fprintf(out, "ok     %s: %s:%s\n", t.source, level, version)
			continue
		}
		forbidden++
		fmt.Fprintf(out, "FAILED %s: %s:%s: %s (%s)\n", t.source, level, version, result.ForbiddenReason(), result.ForbiddenDetail())
	}
	if forbidden > 0 {
		return fmt.Errorf("%d of %d pod templates violate %s:%s", forbidden, len(templates), level, version)
	}
	return nil
}

// readPodTemplates reads a YAML stream and returns the pod template of every workload in it.
func readPodTemplates(in io.Reader) ([]podTemplate, error) {
	reader := utilyaml.NewYAMLReader(bufio.NewReader(in))
	var templates []podTemplate
	for {
		doc, err := reader.Read()
		if errors.Is(err, io.EOF) {
			return templates, nil
		}
		if err != nil {
			return nil, err
		}
		var head metav1.TypeMeta
		var named struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}
		if err := yaml.Unmarshal(doc, &head); err != nil {
			return nil, err
		}
		if head.Kind == "" {
			continue
		}
		_ = yaml.Unmarshal(doc, &named)
		source := fmt.Sprintf("%s/%s", head.Kind, named.Metadata.Name)
		template, found, err := podTemplateOf(head.Kind, doc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", source, err)
		}
		if found {
			templates = append(templates, podTemplate{source: source, meta: template.ObjectMeta, spec: template.Spec})
		}
	}
}

func podTemplateOf(kind string, doc []byte) (corev1.PodTemplateSpec, bool, error) {
	strict := func(target any) error { return yaml.UnmarshalStrict(doc, target) }
	switch kind {
	case "Pod":
		var pod corev1.Pod
		err := strict(&pod)
		return corev1.PodTemplateSpec{ObjectMeta: pod.ObjectMeta, Spec: pod.Spec}, true, err
	case "Deployment":
		var o appsv1.Deployment
		err := strict(&o)
		return o.Spec.Template, true, err
	case "StatefulSet":
		var o appsv1.StatefulSet
		err := strict(&o)
		return o.Spec.Template, true, err
	case "DaemonSet":
		var o appsv1.DaemonSet
		err := strict(&o)
		return o.Spec.Template, true, err
	case "ReplicaSet":
		var o appsv1.ReplicaSet
		err := strict(&o)
		return o.Spec.Template, true, err
	case "Job":
		var o batchv1.Job
		err := strict(&o)
		return o.Spec.Template, true, err
	case "CronJob":
		var o batchv1.CronJob
		err := strict(&o)
		return o.Spec.JobTemplate.Spec.Template, true, err
	}
	return corev1.PodTemplateSpec{}, false, nil
}
