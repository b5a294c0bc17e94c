package provider

// ProviderView is one provider as pi-tui's built-in engine sees it, for
// the Providers screen: whether it has a key, where the key is, and the
// models it opens. It never holds a key.
type ProviderView struct {
	Name, Display string
	API, BaseURL  string
	// BuiltIn: from pi-tui's catalogue (models.json may change it).
	BuiltIn bool
	// Ready: a key is there, or none is needed.
	Ready bool
	// From names where the key is: auth.json, models.json or the
	// environment variable; "" when there is none or none is needed.
	From string
	// Need is what is missing when not Ready; Hint says what to do.
	Need, Hint string
	// Note is a login or token the built-in engine cannot use.
	Note string
	// Env are the variables the provider's key may be in.
	Env    []string
	Models []string
}

// Providers lists every provider the built-in engine knows, in the
// registry's order (models.json's own providers first), with where its
// key comes from as keyPlan decides it: nothing is run or resolved.
func (r *Registry) Providers() []ProviderView {
	out := make([]ProviderView, 0, len(r.providers))
	for _, p := range r.providers {
		kp := r.keyPlan(p)
		v := ProviderView{Name: p.name, Display: p.display, API: p.api, BaseURL: p.baseURL, BuiltIn: p.builtIn,
			Ready: kp.ok, From: kp.from, Need: kp.need, Hint: kp.hint, Note: kp.note, Env: append([]string(nil), p.env...)}
		for _, m := range p.models {
			v.Models = append(v.Models, m.ID)
		}
		out = append(out, v)
	}
	return out
}
