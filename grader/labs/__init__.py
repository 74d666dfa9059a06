"""The course's labs, one folder each.

A lab implements the engine's lab interface: its contract, oracle, case
generators, checks, hints, report checks and message catalogues.  A lab imports
the engine and the standard library; the engine never imports a lab by name.

A lab may import, of the grader: ``lab``, ``vocabulary``, ``sandbox``, ``messages``,
``safefs`` and ``frozen`` of the engine, and its own modules.
"""
