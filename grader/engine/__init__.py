"""The general engine: everything a lab of the course reuses.

The sandbox and its child, the protocol, judging and comparison, results, the
output formats, the command line and class grading live here.  Modules in this
package import the standard library, third-party packages and each other; what is
specific to one lab reaches them through the lab's interface, never by importing a
lab's package.
"""
