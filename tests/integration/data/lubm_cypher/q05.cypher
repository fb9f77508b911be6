// LUBM Query 5: people who are members of Department0 (memberOf and its subproperties, materialised).
MATCH (x:Person)-[:memberOf]->(:Resource {uri: 'http://www.Department0.University0.edu'})
RETURN x AS X
