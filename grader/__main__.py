from grader.engine.cli import console

console()
