"""The middle end: named passes over the immutable :class:`~schemac.ir.module.Module`."""
