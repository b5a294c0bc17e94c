package registry

// OnChange has fn called after every write through the registry (add,
// rename, pin, archive, trust, open, remove) with the project's id, so the
// host can tell the programs showing projects to reload (core/events).
// Set it once, before the registry is shared.
func (r *Registry) OnChange(fn func(projectID string)) { r.onChange = fn }

func (r *Registry) changed(id string) {
	if r.onChange != nil {
		r.onChange(id)
	}
}

// changedIf reports a write that succeeded and passes err on.
func (r *Registry) changedIf(id string, err error) error {
	if err == nil {
		r.changed(id)
	}
	return err
}
