import asyncio
import sys

from .run import main

sys.exit(asyncio.run(main()))
