from grader.engine.commands.cli import console

console()
